import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A failure to answer instead of the normal behaviour, in Twilio's error shape. */
export interface TwilioFailure {
  status: number;
  /** Twilio's error code (20429, 21610…); defaults by status where Twilio has an obvious one. */
  code?: number;
  message?: string;
  /** Sent as a Retry-After header. */
  retryAfterSeconds?: number;
}

/** Twilio's JSON error body, the shape the SDK turns into a RestException. */
export interface TwilioErrorBody {
  code: number | null;
  message: string;
  more_info: string;
  status: number;
}

/** An answer the fake writes. */
export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const defaultCodes: Record<number, number> = { 401: 20003, 404: 20404, 429: 20429, 500: 20500, 503: 20503 };
const defaultMessages: Record<number, string> = {
  400: 'Bad Request',
  401: 'Authenticate',
  404: 'The requested resource was not found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** A failure as Twilio answers it: status, `{code, message, more_info, status}`, Retry-After when set. */
export function errorAnswer(failure: TwilioFailure): FakeAnswer & { body: TwilioErrorBody } {
  const code = failure.code ?? defaultCodes[failure.status] ?? null;
  const body: TwilioErrorBody = {
    code,
    message: failure.message ?? defaultMessages[failure.status] ?? `HTTP ${failure.status}`,
    more_info: code === null ? 'https://www.twilio.com/docs/errors' : `https://www.twilio.com/docs/errors/${code}`,
    status: failure.status,
  };
  const headers = failure.retryAfterSeconds !== undefined ? { 'Retry-After': String(failure.retryAfterSeconds) } : undefined;
  return headers ? { status: failure.status, body, headers } : { status: failure.status, body };
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Twilio-Request-Id': 'RQ' + randomBytes(16).toString('hex'),
    ...headers,
  });
  response.end(payload);
}

function parseBasicAuth(header: string | undefined): { username: string; password: string } | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return { username: decoded, password: '' };
  return { username: decoded.slice(0, separator), password: decoded.slice(separator + 1) };
}

/** Whether the request carries the account's credentials. */
export function authorized(request: IncomingMessage, accountSid: string, authToken: string): boolean {
  const credentials = parseBasicAuth(request.headers.authorization);
  return credentials?.username === accountSid && credentials.password === authToken;
}

/** A Twilio SID: two letters and 32 hex digits. */
export function newSid(prefix: string): string {
  return prefix + randomBytes(16).toString('hex');
}

/** A v1/v2 list page as Twilio's newer APIs answer it: the records under `key`, and `meta`. */
export function listPage(url: string, key: string, records: unknown[]): unknown {
  return { [key]: records, meta: { page: 0, page_size: 50, first_page_url: `${url}?PageSize=50&Page=0`, previous_page_url: null, url: `${url}?PageSize=50&Page=0`, next_page_url: null, key } };
}
