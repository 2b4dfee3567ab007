import type { IncomingMessage } from 'node:http';
import { errorAnswer, newSid, type FakeAnswer, type TwilioFailure } from './http.js';

/** A content the fake holds, as the Content API stores it. */
export interface FakeContent {
  sid: string;
  friendly_name: string;
  language: string;
  variables: Record<string, string>;
  types: Record<string, Record<string, unknown>>;
  /** WhatsApp approval ("approved", "pending", "rejected", "unsubmitted"). */
  approval: string;
  dateCreated: Date;
}

const CONTENT_PATH = /^(?:\/.*)?\/v1\/Content$/;
const CONTENT_ONE_PATH = /^(?:\/.*)?\/v1\/Content\/(HX[0-9a-fA-F]{32})$/;
const APPROVAL_PATH = /^(?:\/.*)?\/v1\/Content\/(HX[0-9a-fA-F]{32})\/ApprovalRequests$/;

const KNOWN_TYPES = new Set(['twilio/text', 'twilio/media', 'twilio/location', 'twilio/list-picker', 'twilio/call-to-action', 'twilio/quick-reply', 'twilio/card', 'twilio/catalog', 'twilio/carousel', 'whatsapp/card', 'whatsapp/authentication']);
const PLACEHOLDER = /\{\{\s*([0-9a-zA-Z_]+)\s*\}\}/g;

/**
 * Twilio's Content API (`content.twilio.com/v1/Content`) as strict as the service: JSON
 * bodies in Twilio's wire names (`friendly_name`, `types` keyed `twilio/quick-reply`…), the
 * documented limits (a quick reply's 1-10 actions with titles of 20 characters and ids of
 * 200, a list picker's 1-10 items of 24 characters, descriptions of 72, a button title of
 * 20, bodies of 1,024), every `{{n}}` placeholder given a default variable. 400s carry
 * Twilio's error body. Also the approval read (`…/ApprovalRequests`) and rendering a sent
 * content's text from its variables.
 */
export class FakeContentApi {
  /** Every content created (or registered), by SID. */
  readonly contents = new Map<string, FakeContent>();
  /** Every create request's JSON body, in order (valid or not). */
  readonly createRequests: unknown[] = [];
  private readonly failures: TwilioFailure[] = [];

  constructor(private readonly url: string) {}

  /** The next create requests fail this way, one each, before validation. */
  failNext(...failures: TwilioFailure[]): void {
    this.failures.push(...failures);
  }

  /** A content that exists already (an operator's approved template), e.g. for reminders outside the window. */
  register(sid: string, fields: { body?: string; approval?: string; friendlyName?: string } = {}): void {
    this.contents.set(sid, {
      sid,
      friendly_name: fields.friendlyName ?? 'registered',
      language: 'en',
      variables: { '1': 'text' },
      types: { 'twilio/text': { body: fields.body ?? '{{1}}' } },
      approval: fields.approval ?? 'approved',
      dateCreated: new Date(),
    });
  }

  /**
   * Forgets the requests and queued failures. The contents stay, as they do in a Twilio
   * account: a Herald that made them (and keeps their SIDs) still sends them after a reset.
   */
  reset(): void {
    this.createRequests.length = 0;
    this.failures.length = 0;
  }

  /** Answers a Content API request (auth already checked), or undefined when the path is not the Content API's. */
  handle(request: IncomingMessage, path: string, rawBody: string): FakeAnswer | undefined {
    if (request.method === 'POST' && CONTENT_PATH.test(path)) return this.create(request, rawBody);
    const approval = APPROVAL_PATH.exec(path);
    if (request.method === 'GET' && approval) {
      const content = this.contents.get(approval[1]!);
      if (!content) return errorAnswer({ status: 404, message: `The requested resource ${path} was not found` });
      return { status: 200, body: { sid: content.sid, account_sid: 'AC', url: `${this.url}${path}`, whatsapp: { type: 'whatsapp', name: content.friendly_name, category: 'UTILITY', content_type: Object.keys(content.types)[0], status: content.approval, rejection_reason: '', allow_category_change: true } } };
    }
    const one = CONTENT_ONE_PATH.exec(path);
    if (request.method === 'GET' && one) {
      const content = this.contents.get(one[1]!);
      return content ? { status: 200, body: this.resource(content) } : errorAnswer({ status: 404, message: `The requested resource ${path} was not found` });
    }
    if (CONTENT_PATH.test(path) || one || approval) return errorAnswer({ status: 405, code: 20004, message: 'Method not allowed' });
    return undefined;
  }

  /**
   * What a message sent with this content shows (its main type's body, variables filled from
   * ContentVariables, else the defaults), or a failure as Twilio's Messages API answers it:
   * 21655 for an unknown ContentSid, 21656 for ContentVariables that are not a JSON object of strings.
   */
  render(contentSid: string, contentVariables: string | undefined): { body: string } | { failure: TwilioFailure } {
    const content = this.contents.get(contentSid);
    if (!content) return { failure: { status: 400, code: 21655, message: `The ContentSid ${contentSid} is invalid.` } };
    let given: Record<string, unknown> = {};
    if (contentVariables !== undefined) {
      try {
        given = JSON.parse(contentVariables) as Record<string, unknown>;
      } catch {
        return { failure: { status: 400, code: 21656, message: 'The ContentVariables Parameter is invalid.' } };
      }
      if (typeof given !== 'object' || given === null || Array.isArray(given) || Object.values(given).some((value) => typeof value !== 'string')) {
        return { failure: { status: 400, code: 21656, message: 'The ContentVariables Parameter is invalid.' } };
      }
    }
    const fill = (text: unknown) => String(text ?? '').replace(PLACEHOLDER, (_match, name: string) => String(given[name] ?? content.variables[name] ?? ''));
    // The limits hold for what the user sees, variables filled in (a 30-character button title is refused at send).
    const deepFill = (value: unknown): unknown =>
      typeof value === 'string' ? fill(value) : Array.isArray(value) ? value.map(deepFill) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).map(([key, field]) => [key, deepFill(field)])) : value;
    const filled = deepFill(content.types) as FakeContent['types'];
    for (const [name, value] of Object.entries(filled)) {
      const problem = validateType(name, value);
      if (problem) return { failure: { status: 400, code: 21656, message: `The ContentVariables Parameter is invalid: ${problem}` } };
    }
    const main = content.types['twilio/quick-reply'] ?? content.types['twilio/list-picker'] ?? content.types['twilio/text'] ?? Object.values(content.types)[0]!;
    return { body: fill(main.body) };
  }

  private create(request: IncomingMessage, rawBody: string): FakeAnswer {
    const failure = this.failures.shift();
    if (failure) return errorAnswer(failure);
    if (!String(request.headers['content-type'] ?? '').startsWith('application/json')) return invalid('Content-Type must be application/json');
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return invalid('The request body is not valid JSON');
    }
    this.createRequests.push(body);
    const problem = validate(body);
    if (problem) return invalid(problem);
    const definition = body as { friendly_name?: string; language: string; variables?: Record<string, string>; types: Record<string, Record<string, unknown>> };
    const content: FakeContent = {
      sid: newSid('HX'),
      friendly_name: definition.friendly_name ?? '',
      language: definition.language,
      variables: definition.variables ?? {},
      types: definition.types,
      approval: 'unsubmitted',
      dateCreated: new Date(),
    };
    this.contents.set(content.sid, content);
    return { status: 201, body: this.resource(content) };
  }

  private resource(content: FakeContent) {
    const url = `${this.url}/v1/Content/${content.sid}`;
    return {
      sid: content.sid,
      account_sid: 'AC' + '0'.repeat(32),
      friendly_name: content.friendly_name,
      language: content.language,
      variables: content.variables,
      types: content.types,
      date_created: content.dateCreated.toISOString(),
      date_updated: content.dateCreated.toISOString(),
      url,
      links: { approval_create: `${url}/ApprovalRequests/whatsapp`, approval_fetch: `${url}/ApprovalRequests` },
    };
  }
}

function invalid(message: string): FakeAnswer {
  return errorAnswer({ status: 400, code: 20001, message: `Invalid parameter: ${message}` });
}

const isString = (value: unknown): value is string => typeof value === 'string';
const length = (value: string) => [...value].length;

/** What Twilio would refuse in a create request, in words; undefined when it is valid. */
function validate(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object';
  const { friendly_name: friendlyName, language, variables, types } = body as Record<string, unknown>;
  if (friendlyName !== undefined && (!isString(friendlyName) || length(friendlyName) > 64)) return 'friendly_name must be a string of at most 64 characters';
  if (!isString(language) || !/^[a-z]{2}(?:[_-][A-Za-z]{2})?$/.test(language)) return 'language is required (e.g. "en")';
  if (variables !== undefined && (typeof variables !== 'object' || variables === null || Array.isArray(variables) || !Object.values(variables).every(isString))) return 'variables must map names to strings';
  if (typeof types !== 'object' || types === null || Array.isArray(types) || Object.keys(types).length === 0) return 'types is required';
  for (const [name, value] of Object.entries(types)) {
    if (!KNOWN_TYPES.has(name)) return `unknown content type ${name} (camelCase names such as twilioQuickReply are not Twilio's)`;
    if (typeof value !== 'object' || value === null) return `${name} must be an object`;
    const problem = validateType(name, value as Record<string, unknown>);
    if (problem) return problem;
  }
  const defaults = (variables ?? {}) as Record<string, string>;
  for (const placeholder of JSON.stringify(types).matchAll(PLACEHOLDER)) {
    if (!(placeholder[1]! in defaults)) return `placeholder {{${placeholder[1]}}} has no default in variables`;
  }
  return undefined;
}

function validateType(name: string, value: Record<string, unknown>): string | undefined {
  const body = value.body;
  if (!isString(body) || body.length === 0 || length(body) > 1024) return `${name}.body is required, at most 1,024 characters`;
  if (name === 'twilio/quick-reply') {
    const actions = value.actions;
    if (!Array.isArray(actions) || actions.length < 1 || actions.length > 10) return 'twilio/quick-reply takes 1 to 10 actions';
    for (const action of actions as Array<Record<string, unknown>>) {
      if (!isString(action.title) || length(action.title) > 20) return 'a quick reply title is required, at most 20 characters';
      if (action.id !== undefined && (!isString(action.id) || length(action.id) > 200)) return 'a quick reply id is at most 200 characters';
    }
  }
  if (name === 'twilio/list-picker') {
    if (!isString(value.button) || length(value.button) > 20) return 'twilio/list-picker.button is required, at most 20 characters';
    const items = value.items;
    if (!Array.isArray(items) || items.length < 1 || items.length > 10) return 'twilio/list-picker takes 1 to 10 items';
    for (const item of items as Array<Record<string, unknown>>) {
      if (!isString(item.item) || length(item.item) > 24) return 'a list item is required, at most 24 characters';
      if (!isString(item.id) || length(item.id) > 200) return 'a list item id is required, at most 200 characters';
      if (item.description !== undefined && (!isString(item.description) || length(item.description) > 72)) return 'a list item description is at most 72 characters';
    }
  }
  return undefined;
}
