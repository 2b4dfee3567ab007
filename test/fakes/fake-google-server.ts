import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import rrule from 'rrule';
import { recordFakeFailure } from './fake-failures.js';
import { FakeGmail } from './fake-gmail.js';

const { RRule } = rrule;

/** Scopes that let a token use the Calendar API. */
const CALENDAR_SCOPES = ['https://www.googleapis.com/auth/calendar', 'https://www.googleapis.com/auth/calendar.events'];

/** An event time as the Calendar API writes it. */
interface GoogleTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

/** A stored event (a single one, or a recurring series). */
interface StoredEvent {
  id: string;
  etag: string;
  status: 'confirmed' | 'cancelled';
  summary?: string;
  location?: string;
  description?: string;
  start: GoogleTime;
  end: GoogleTime;
  recurrence?: string[];
  attendees?: Array<{ email: string }>;
  /** Changed or cancelled occurrences, by instance id. */
  instances: Map<string, Partial<StoredEvent> & { status: 'confirmed' | 'cancelled'; etag: string }>;
}

/** Options for a fake Google. */
export interface FakeGoogleOptions {
  /**
   * The most events one page of events.list holds (default 3). Google may return fewer
   * events than maxResults asks for and a nextPageToken; a small page makes every list of
   * a few events take the client's page loop.
   */
  pageSize?: number;
}

const DEFAULT_PAGE_SIZE = 3;

/** What the token endpoint was asked, in order. */
export interface TokenRequest {
  grantType: string;
  ok: boolean;
}

/**
 * A local stand-in for Google at the network edge: the OAuth consent page (approves as a
 * configured account), the token endpoint (authorization code with PKCE S256, refresh
 * tokens, `invalid_grant` once revoked) and the Calendar v3 endpoints the official client
 * calls (events list with singleEvents expansion, paged at a small size; get, insert,
 * patch, delete; ETags and If-Match; an event without a start or end, or ending before it
 * starts, refused as Google refuses it), and Gmail v1 ({@link FakeGmail}). Access tokens expire on command, so
 * refreshing is exercised for real. Every token carries the scopes consented to (all of
 * the account's earlier grants too with `include_granted_scopes`, as Google does); an API
 * call its scopes do not cover is a 403 "insufficient authentication scopes".
 */
export class FakeGoogleServer {
  readonly clientId = 'herald-test.apps.googleusercontent.com';
  readonly clientSecret = 'test-google-client-secret';
  /** Who consents on the consent page; undefined: the user refuses (error=access_denied). */
  consentAs: string | undefined = 'ana@gmail.com';
  /** Scopes the user unticks on the consent page (Google's granular consent). */
  declineScopes: string[] = [];
  /** Tokens revoked through the revoke endpoint, in order. */
  readonly revokedTokens: string[] = [];
  /** The scopes each consent page asked for, in order. */
  readonly consentScopes: string[][] = [];
  readonly tokenRequests: TokenRequest[] = [];
  /** Calendar and Gmail API requests, as "METHOD path". */
  readonly apiRequests: string[] = [];
  /** The Gmail mailboxes behind the Gmail endpoints. */
  readonly gmail = new FakeGmail();
  /** Each account's Google Contacts, as the People API returns them (`people/me/connections`). */
  readonly people = new Map<string, Array<Record<string, unknown> & { resourceName: string }>>();
  /** What each account has granted Herald so far (for `include_granted_scopes`). */
  private readonly granted = new Map<string, Set<string>>();
  private readonly codes = new Map<string, { challenge: string; email: string; scope: string; redirectUri: string }>();
  private readonly accessTokens = new Map<string, { expiresAt: number; email: string; scope: string }>();
  private readonly refreshTokens = new Map<string, { email: string; revoked: boolean; scope: string }>();
  private readonly events = new Map<string, StoredEvent>();
  private readonly pageTokens = new Map<string, { queryKey: string; offset: number }>();
  private nextFailures: number[] = [];
  private counter = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** The most events one list page holds, whatever maxResults asks (see FakeGoogleOptions). */
    readonly pageSize: number,
  ) {}

  static async start(options: FakeGoogleOptions = {}): Promise<FakeGoogleServer> {
    let fake: FakeGoogleServer | undefined;
    const server = createServer((request, response) => {
      fake!.handle(request, response).catch((error: unknown) => {
        // A throw in here is a bug in the fake or in what a test set up: the test fails with it (fake-failures.ts).
        recordFakeFailure(fake!, error);
        send(response, 500, { error: { code: 500, message: String(error) } });
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    fake = new FakeGoogleServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, options.pageSize ?? DEFAULT_PAGE_SIZE);
    return fake;
  }

  /** Settings pointing Herald here. */
  env(): Record<string, string> {
    return {
      GOOGLE_CLIENT_ID: this.clientId,
      GOOGLE_CLIENT_SECRET: this.clientSecret,
      GOOGLE_OAUTH_AUTH_URL: `${this.url}/o/oauth2/v2/auth`,
      GOOGLE_OAUTH_TOKEN_URL: `${this.url}/token`,
      GOOGLE_OAUTH_REVOKE_URL: `${this.url}/revoke`,
      GOOGLE_API_BASE_URL: `${this.url}/`,
    };
  }

  /** A refresh token for `email`, as if consent had been given before (for tests that start connected). */
  grant(email = 'ana@gmail.com', scope = 'openid email https://www.googleapis.com/auth/calendar.events'): { refreshToken: string; accessToken: string; expiresAt: number } {
    const refreshToken = `1//refresh-${this.token()}`;
    this.refreshTokens.set(refreshToken, { email, revoked: false, scope });
    this.grantedTo(email, scope.split(/\s+/));
    const accessToken = this.issueAccessToken(email, scope);
    return { refreshToken, accessToken, expiresAt: this.accessTokens.get(accessToken)!.expiresAt };
  }

  /** Every access token issued so far stops working (as after an hour). */
  expireAccessTokens(): void {
    for (const token of this.accessTokens.values()) token.expiresAt = 0;
  }

  /** The user removed Herald's access in their Google account. */
  revokeAll(): void {
    for (const token of this.refreshTokens.values()) token.revoked = true;
    this.accessTokens.clear();
    // Google forgets the grants too: include_granted_scopes brings nothing back.
    this.granted.clear();
  }

  /** The next API requests answer these statuses (5xx, 403…), in order. */
  failNext(...statuses: number[]): void {
    this.nextFailures.push(...statuses);
  }

  /** The stored events' titles (cancelled ones excluded). */
  titles(): string[] {
    return [...this.events.values()].filter((event) => event.status !== 'cancelled').map((event) => event.summary ?? '');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const body = await readBody(request);
    if (url.pathname === '/o/oauth2/v2/auth') return this.consent(url, response);
    if (url.pathname === '/token' && request.method === 'POST') return this.tokenEndpoint(new URLSearchParams(body), response);
    if (url.pathname === '/revoke' && request.method === 'POST') return this.revoke(new URLSearchParams(body).get('token') ?? url.searchParams.get('token') ?? '', response);
    const match = /^\/calendar\/v3\/calendars\/([^/]+)\/events(?:\/([^/]+))?$/.exec(url.pathname);
    const isGmail = url.pathname.startsWith('/gmail/v1/');
    const isPeople = url.pathname === '/v1/people/me/connections';
    if (!match && !isGmail && !isPeople) return send(response, 404, { error: { code: 404, message: 'Not Found' } });
    this.apiRequests.push(`${request.method} ${url.pathname}`);
    const failure = this.nextFailures.shift();
    if (failure) return send(response, failure, { error: { code: failure, message: `fake failure ${failure}` } });
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const access = bearer ? this.accessTokens.get(bearer) : undefined;
    if (!access || access.expiresAt <= Date.now()) return send(response, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
    if (isGmail) {
      const answer = this.gmail.handle(request.method ?? 'GET', url, body, access.email, access.scope);
      return send(response, answer.status, answer.body);
    }
    if (isPeople) return this.connections(request.method ?? 'GET', url, access, response);
    if (!match) return;
    if (!CALENDAR_SCOPES.some((scope) => access.scope.split(/\s+/).includes(scope))) return send(response, 403, insufficientScopes());
    const id = match[2] ? decodeURIComponent(match[2]) : undefined;
    const input = body ? (JSON.parse(body) as Partial<StoredEvent>) : {};
    const ifMatch = request.headers['if-match'];
    if (!id && request.method === 'GET') {
      const listed = this.list(url.searchParams);
      return 'error' in listed ? send(response, 400, listed) : send(response, 200, listed);
    }
    if (!id && request.method === 'POST') {
      const invalid = checkTimes(input.start, input.end);
      return invalid ? send(response, 400, invalid) : send(response, 200, this.insert(input));
    }
    if (!id) return send(response, 405, { error: { code: 405, message: 'Method not allowed' } });
    const found = this.find(id);
    if (!found) return send(response, 404, { error: { code: 404, message: 'Not Found' } });
    if (ifMatch && ifMatch !== found.view.etag) return send(response, 412, { error: { code: 412, message: 'Precondition Failed' } });
    if (request.method === 'GET') return found.view.status === 'cancelled' ? send(response, 410, { error: { code: 410, message: 'Resource has been deleted' } }) : send(response, 200, found.view);
    if (request.method === 'PATCH') {
      const invalid = checkTimes(input.start ?? found.view.start, input.end ?? found.view.end);
      return invalid ? send(response, 400, invalid) : send(response, 200, this.patch(found, input));
    }
    if (request.method === 'DELETE') {
      this.remove(found);
      response.writeHead(204).end();
      return;
    }
    return send(response, 405, { error: { code: 405, message: 'Method not allowed' } });
  }

  /** The People API's `people/me/connections`, as strict as Google's: GET, personFields required, pageSize 1-1000, page tokens it issued. */
  private connections(method: string, url: URL, access: { email: string; scope: string }, response: ServerResponse): void {
    if (method !== 'GET') return send(response, 405, { error: { code: 405, message: 'Method not allowed' } });
    const scopes = access.scope.split(/\s+/);
    if (!scopes.includes('https://www.googleapis.com/auth/contacts.readonly') && !scopes.includes('https://www.googleapis.com/auth/contacts')) return send(response, 403, insufficientScopes());
    if (!url.searchParams.get('personFields')) return send(response, 400, { error: { code: 400, message: 'personFields mask is required. Please specify one or more valid paths.', status: 'INVALID_ARGUMENT' } });
    const pageSize = Number(url.searchParams.get('pageSize') ?? '100');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) return send(response, 400, { error: { code: 400, message: 'Invalid pageSize', status: 'INVALID_ARGUMENT' } });
    const token = url.searchParams.get('pageToken');
    const start = token ? Number(/^page-(\d+)$/.exec(token)?.[1] ?? Number.NaN) : 0;
    if (Number.isNaN(start)) return send(response, 400, { error: { code: 400, message: 'Invalid pageToken', status: 'INVALID_ARGUMENT' } });
    const all = this.people.get(access.email) ?? [];
    const page = all.slice(start, start + pageSize);
    return send(response, 200, { ...(page.length > 0 ? { connections: page } : {}), totalPeople: all.length, totalItems: all.length, ...(start + pageSize < all.length ? { nextPageToken: `page-${start + pageSize}` } : {}) });
  }

  private consent(url: URL, response: ServerResponse): void {
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    const state = url.searchParams.get('state') ?? '';
    const target = new URL(redirectUri);
    target.searchParams.set('state', state);
    if (!this.consentAs || url.searchParams.get('code_challenge_method') !== 'S256' || url.searchParams.get('client_id') !== this.clientId) {
      target.searchParams.set('error', 'access_denied');
    } else {
      const code = `4/code-${this.token()}`;
      const requested = (url.searchParams.get('scope') ?? '').split(/\s+/).filter(Boolean);
      // The consent page lists what is asked for now; the grant includes earlier ones when asked to.
      this.consentScopes.push(requested);
      const earlier = url.searchParams.get('include_granted_scopes') === 'true' ? [...(this.granted.get(this.consentAs) ?? [])] : [];
      const scope = [...new Set([...earlier, ...requested.filter((asked) => !this.declineScopes.includes(asked))])].join(' ');
      this.codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', email: this.consentAs, scope, redirectUri });
      target.searchParams.set('code', code);
    }
    response.writeHead(302, { location: target.toString() }).end();
  }

  private tokenEndpoint(form: URLSearchParams, response: ServerResponse): void {
    const grantType = form.get('grant_type') ?? '';
    const refuse = (error: string, description: string) => {
      this.tokenRequests.push({ grantType, ok: false });
      send(response, 400, { error, error_description: description });
    };
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) return refuse('invalid_client', 'Unauthorized');
    if (grantType === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!code || code.redirectUri !== form.get('redirect_uri')) return refuse('invalid_grant', 'Bad Request');
      if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return refuse('invalid_grant', 'Invalid code verifier.');
      const refreshToken = `1//refresh-${this.token()}`;
      this.refreshTokens.set(refreshToken, { email: code.email, revoked: false, scope: code.scope });
      this.grantedTo(code.email, code.scope.split(/\s+/));
      this.tokenRequests.push({ grantType, ok: true });
      const idToken = [{ alg: 'none' }, { email: code.email, iss: 'https://accounts.google.com' }, {}].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.');
      return send(response, 200, { access_token: this.issueAccessToken(code.email, code.scope), refresh_token: refreshToken, expires_in: 3599, scope: code.scope, token_type: 'Bearer', id_token: idToken });
    }
    if (grantType === 'refresh_token') {
      const stored = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!stored || stored.revoked) return refuse('invalid_grant', 'Token has been expired or revoked.');
      this.tokenRequests.push({ grantType, ok: true });
      return send(response, 200, { access_token: this.issueAccessToken(stored.email, stored.scope), expires_in: 3599, scope: stored.scope, token_type: 'Bearer' });
    }
    return refuse('unsupported_grant_type', 'Invalid grant_type');
  }

  /** Google's revoke endpoint: a refresh token (or access token) given here stops working, with its grant. */
  private revoke(token: string, response: ServerResponse): void {
    const refresh = this.refreshTokens.get(token);
    const access = this.accessTokens.get(token);
    if (!refresh && !access) return send(response, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
    this.revokedTokens.push(token);
    const email = refresh?.email ?? access!.email;
    for (const stored of this.refreshTokens.values()) if (stored.email === email) stored.revoked = true;
    for (const [key, stored] of this.accessTokens) if (stored.email === email) this.accessTokens.delete(key);
    this.granted.delete(email);
    send(response, 200, {});
  }

  private issueAccessToken(email: string, scope: string): string {
    const token = `ya29.${this.token()}`;
    this.accessTokens.set(token, { email, expiresAt: Date.now() + 3_599_000, scope });
    return token;
  }

  private grantedTo(email: string, scopes: string[]): void {
    const granted = this.granted.get(email) ?? new Set<string>();
    for (const scope of scopes) if (scope) granted.add(scope);
    this.granted.set(email, granted);
  }

  private insert(input: Partial<StoredEvent>): unknown {
    const id = `ev${(this.counter += 1)}${randomBytes(3).toString('hex')}`;
    const event: StoredEvent = {
      id,
      etag: this.etag(),
      status: 'confirmed',
      summary: input.summary,
      location: input.location,
      description: input.description,
      start: input.start!,
      end: input.end!,
      recurrence: input.recurrence,
      attendees: input.attendees,
      instances: new Map(),
    };
    this.events.set(id, event);
    return view(event);
  }

  /** A series, a single event, or one occurrence (instance ids are `<series>_<original start>`). */
  private find(id: string): { event: StoredEvent; instanceId?: string; view: ReturnType<typeof view> } | undefined {
    const event = this.events.get(id);
    if (event) return { event, view: view(event) };
    const separator = id.lastIndexOf('_');
    const series = this.events.get(id.slice(0, separator));
    if (!series) return undefined;
    const occurrence = occurrences(series, new Date(0), new Date(Date.UTC(2100, 0))).find((candidate) => candidate.id === id);
    return occurrence ? { event: series, instanceId: id, view: occurrence } : undefined;
  }

  private patch(found: { event: StoredEvent; instanceId?: string }, input: Partial<StoredEvent>): unknown {
    const fields = Object.fromEntries(Object.entries(input).filter(([key]) => ['summary', 'location', 'description', 'start', 'end', 'recurrence', 'attendees'].includes(key)));
    if (found.instanceId) {
      const previous = found.event.instances.get(found.instanceId);
      found.event.instances.set(found.instanceId, { ...previous, ...fields, status: 'confirmed', etag: this.etag() });
      return occurrences(found.event, new Date(0), new Date(Date.UTC(2100, 0))).find((candidate) => candidate.id === found.instanceId);
    }
    const timeMoved = 'start' in fields && JSON.stringify(fields.start) !== JSON.stringify(found.event.start);
    Object.assign(found.event, fields, { etag: this.etag() });
    // As Google does: moving a series drops the changes made to its occurrences.
    if (timeMoved) found.event.instances.clear();
    return view(found.event);
  }

  private remove(found: { event: StoredEvent; instanceId?: string }): void {
    if (found.instanceId) found.event.instances.set(found.instanceId, { status: 'cancelled', etag: this.etag() });
    else {
      found.event.status = 'cancelled';
      found.event.etag = this.etag();
    }
  }

  /**
   * One page of events.list: at most maxResults (250 by default, 2500 at most) and never more
   * than this fake's page size, with a nextPageToken while more remain. A token is only good
   * for the query it came from, as Google's.
   */
  private list(query: URLSearchParams): { kind: string; items: unknown[]; nextPageToken?: string } | GoogleError {
    const from = new Date(query.get('timeMin') ?? 0);
    const to = new Date(query.get('timeMax') ?? Date.UTC(2100, 0));
    if (query.get('singleEvents') !== 'true') throw new Error('the fake lists with singleEvents=true only');
    if (from.getTime() >= to.getTime()) return timeRangeEmpty();
    const maxResults = Number(query.get('maxResults') ?? 250);
    if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 2500) return badRequest('invalid', `Invalid value for maxResults: ${query.get('maxResults')}`);
    const items = [...this.events.values()]
      .filter((event) => event.status !== 'cancelled')
      .flatMap((event) => (event.recurrence ? occurrences(event, from, to) : [view(event)]))
      .filter((item) => item.status !== 'cancelled' && instant(item.start, false).getTime() < to.getTime() && instant(item.end, true).getTime() > from.getTime())
      .sort((left, right) => instant(left.start, false).getTime() - instant(right.start, false).getTime());
    const queryKey = [...query.entries()].filter(([key]) => key !== 'pageToken').sort(([left], [right]) => left.localeCompare(right)).map(([key, value]) => `${key}=${value}`).join('&');
    const token = query.get('pageToken');
    let offset = 0;
    if (token) {
      const page = this.pageTokens.get(token);
      if (!page || page.queryKey !== queryKey) return badRequest('invalid', 'Invalid page token value.');
      offset = page.offset;
    }
    const end = offset + Math.min(maxResults, this.pageSize);
    if (end >= items.length) return { kind: 'calendar#events', items: items.slice(offset) };
    const nextPageToken = this.token();
    this.pageTokens.set(nextPageToken, { queryKey, offset: end });
    return { kind: 'calendar#events', items: items.slice(offset, end), nextPageToken };
  }

  private etag(): string {
    return `"${(this.counter += 1)}${randomBytes(4).toString('hex')}"`;
  }

  private token(): string {
    return randomBytes(16).toString('base64url');
  }
}

function view(event: StoredEvent) {
  return {
    kind: 'calendar#event',
    id: event.id,
    etag: event.etag,
    status: event.status,
    summary: event.summary,
    location: event.location,
    description: event.description,
    start: event.start,
    end: event.end,
    recurrence: event.recurrence,
    attendees: event.attendees,
    recurringEventId: undefined as string | undefined,
    originalStartTime: undefined as GoogleTime | undefined,
  };
}

/** The series' instances from `from` (wall-clock expansion in the series' zone), with their changes. */
function occurrences(series: StoredEvent, from: Date, to: Date): Array<ReturnType<typeof view>> {
  const allDay = series.start.date !== undefined;
  const zone = series.start.timeZone ?? 'UTC';
  const startLocal = allDay ? DateTime.fromISO(series.start.date!, { zone: 'UTC' }) : DateTime.fromISO(series.start.dateTime!, { zone }).setZone(zone);
  const floatingStart = new Date(Date.UTC(startLocal.year, startLocal.month - 1, startLocal.day, startLocal.hour, startLocal.minute));
  const rule = new RRule({ ...RRule.parseString(series.recurrence!.map((line) => line.replace(/^RRULE:/, '')).join(';')), dtstart: floatingStart });
  const durationMs = instant(series.end, true).getTime() - instant(series.start, false).getTime();
  const results: Array<ReturnType<typeof view>> = [];
  for (const floating of rule.all((_date, index) => index < 5000)) {
    const local = DateTime.fromObject({ year: floating.getUTCFullYear(), month: floating.getUTCMonth() + 1, day: floating.getUTCDate(), hour: floating.getUTCHours(), minute: floating.getUTCMinutes() }, { zone: allDay ? 'UTC' : zone });
    const start: GoogleTime = allDay ? { date: local.toISODate()! } : { dateTime: local.toISO({ suppressMilliseconds: true })!, timeZone: zone };
    const endInstant = DateTime.fromMillis(local.toMillis() + durationMs, { zone: allDay ? 'UTC' : zone });
    const end: GoogleTime = allDay ? { date: endInstant.toISODate()! } : { dateTime: endInstant.toISO({ suppressMilliseconds: true })!, timeZone: zone };
    const id = `${series.id}_${allDay ? local.toFormat('yyyyMMdd') : local.toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`;
    const change = series.instances.get(id);
    const occurrence = { ...view(series), ...change, id, etag: change?.etag ?? series.etag, status: change?.status ?? 'confirmed', recurringEventId: series.id, originalStartTime: start, recurrence: undefined };
    if (!change?.start) Object.assign(occurrence, { start, end: change?.end ?? end });
    if (instant(occurrence.start, false).getTime() >= to.getTime() && local.toMillis() >= to.getTime()) break;
    if (instant(occurrence.end, true).getTime() > from.getTime()) results.push(occurrence);
  }
  return results;
}

function instant(time: GoogleTime, _isEnd: boolean): Date {
  if (time.dateTime) return DateTime.fromISO(time.dateTime, { zone: time.timeZone ?? 'UTC' }).toJSDate();
  return DateTime.fromISO(time.date!, { zone: 'UTC' }).toJSDate();
}

/** Google's error body. */
interface GoogleError {
  error: { code: number; message: string; errors: Array<{ domain: string; reason: string; message: string }> };
}

function badRequest(reason: string, message: string, domain = 'global'): GoogleError {
  return { error: { code: 400, message, errors: [{ domain, reason, message }] } };
}

function timeRangeEmpty(): GoogleError {
  return badRequest('timeRangeEmpty', 'The specified time range is empty.', 'calendar');
}

/**
 * What Google refuses in an event's times, with its own messages: no start or end, a
 * dateTime with no offset and no timeZone, a date start with a dateTime end (or the
 * reverse), and an end before the start.
 */
function checkTimes(start: GoogleTime | undefined, end: GoogleTime | undefined): GoogleError | undefined {
  if (!start || (!start.date && !start.dateTime)) return badRequest('required', 'Missing start time.');
  if (!end || (!end.date && !end.dateTime)) return badRequest('required', 'Missing end time.');
  for (const [name, time] of [['start', start], ['end', end]] as const) {
    if (time.dateTime && !/(Z|[+-]\d{2}:\d{2})$/.test(time.dateTime) && !time.timeZone) return badRequest('required', `Missing time zone definition for ${name} time.`);
    if ((time.dateTime && Number.isNaN(instant(time, false).getTime())) || (time.date && !/^\d{4}-\d{2}-\d{2}$/.test(time.date))) return badRequest('invalid', `Invalid ${name} time.`);
  }
  if (Boolean(start.date) !== Boolean(end.date)) return badRequest('invalid', 'Start and end times must either both be date or both be dateTime.');
  if (instant(end, true).getTime() < instant(start, false).getTime()) return timeRangeEmpty();
  return undefined;
}

function insufficientScopes(): unknown {
  return { error: { code: 403, message: 'Request had insufficient authentication scopes.', errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }], status: 'PERMISSION_DENIED' } };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (status === 204) return void response.writeHead(204).end();
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
