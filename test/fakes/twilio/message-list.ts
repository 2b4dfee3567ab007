import { errorAnswer, type FakeAnswer } from './http.js';

/** A stored Message resource, as the fake answers it (Twilio's snake_case JSON). */
export type MessageResource = Record<string, unknown> & { sid: string; to: string; from: string | null; date_created: string; date_sent: string | null };

const apiVersion = '2010-04-01';
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;
const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * Twilio's Messages list (`GET /2010-04-01/Accounts/{AccountSid}/Messages.json`), as the API
 * answers it: newest first; filtered by `To`, `From` and `DateSent` (that UTC day),
 * `DateSent>` (on or after: a date means its midnight) and `DateSent<` (on or before: a date
 * means the whole day), a message not sent yet (no date_sent) never matching a DateSent
 * filter; `PageSize` (default 50, at most 1,000); paged with `Page` and `PageToken` (`PA` and
 * the sid the previous page ended on), each page carrying `next_page_uri` until the last.
 * The SDK sends dates as `YYYY-MM-DDThh:mm:ssZ`; Twilio takes `YYYY-MM-DD` too.
 */
export function listMessages(resources: readonly MessageResource[], accountSid: string, query: URLSearchParams): FakeAnswer {
  const pageSize = query.has('PageSize') ? Number(query.get('PageSize')) : DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    return errorAnswer({ status: 400, code: 20001, message: `Invalid PageSize: ${query.get('PageSize')}` });
  }
  const filters: Array<(resource: MessageResource) => boolean> = [];
  const to = query.get('To');
  const from = query.get('From');
  if (to !== null) filters.push((resource) => resource.to === to);
  if (from !== null) filters.push((resource) => resource.from === from);
  for (const [name, test] of [
    ['DateSent', (sent: number, value: number, day: boolean) => (day ? sent >= value && sent < value + DAY_MS : startOfDay(sent) === startOfDay(value))],
    ['DateSent>', (sent: number, value: number) => sent >= value],
    ['DateSent<', (sent: number, value: number, day: boolean) => (day ? sent < value + DAY_MS : sent <= value)],
  ] as const) {
    const raw = query.get(name);
    if (raw === null) continue;
    const value = Date.parse(dateOnly.test(raw) ? `${raw}T00:00:00Z` : raw);
    if (Number.isNaN(value)) return errorAnswer({ status: 400, code: 20001, message: `Invalid ${name}: ${raw}` });
    const day = dateOnly.test(raw);
    filters.push((resource) => resource.date_sent !== null && test(Date.parse(resource.date_sent), value, day));
  }
  // Newest first; messages of the same second in the reverse of the order they were taken.
  const matching = resources.filter((resource) => filters.every((filter) => filter(resource))).reverse();
  matching.sort((a, b) => Date.parse(b.date_created) - Date.parse(a.date_created));

  const token = query.get('PageToken');
  const after = token?.startsWith('PA') ? matching.findIndex((resource) => resource.sid === token.slice(2)) : -1;
  if (token && after < 0) return errorAnswer({ status: 400, code: 20001, message: `Invalid PageToken: ${token}` });
  const start = after + 1;
  const records = matching.slice(start, start + pageSize);
  const page = Number(query.get('Page') ?? 0);
  const base = `/${apiVersion}/Accounts/${accountSid}/Messages.json`;
  const filterParams = [...query.entries()].filter(([name]) => !['Page', 'PageSize', 'PageToken'].includes(name));
  const uriFor = (pageNumber: number, pageToken?: string) => {
    const params = new URLSearchParams([...filterParams, ['PageSize', String(pageSize)], ['Page', String(pageNumber)], ...(pageToken ? [['PageToken', pageToken] as [string, string]] : [])]);
    return `${base}?${params.toString()}`;
  };
  const last = records.at(-1);
  const more = start + records.length < matching.length;
  return {
    status: 200,
    body: {
      messages: records,
      end: start + Math.max(0, records.length - 1),
      first_page_uri: uriFor(0),
      next_page_uri: more && last ? uriFor(page + 1, `PA${last.sid}`) : null,
      previous_page_uri: page > 0 ? uriFor(page - 1) : null,
      page,
      page_size: pageSize,
      start,
      uri: uriFor(page, token ?? undefined),
    },
  };
}

function startOfDay(instant: number): number {
  return instant - (((instant % DAY_MS) + DAY_MS) % DAY_MS);
}
