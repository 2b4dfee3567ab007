import type twilio from 'twilio';
import type { SentMessageLookup, SentMessageQuery } from './message-transport.js';

/**
 * How much earlier than the attempt Twilio's `date_created` may read and still be that
 * attempt's message: Twilio keeps whole seconds, and its clock and ours are not the same one.
 */
const LOOKUP_CLOCK_SLACK_MS = 5_000;
/** Messages per page of the list, and the most pages read for one look-up. */
const PAGE_SIZE = 100;
const MAX_PAGES = 10;
/** The newest messages read when looking for one Twilio has taken but not sent yet (no DateSent). */
const RECENT_UNSENT = 50;

type Client = ReturnType<typeof twilio>;
type Listed = Awaited<ReturnType<Client['messages']['page']>>['instances'][number];
/** One page of the list, as the SDK pages it. */
interface ListPage {
  instances: Listed[];
  nextPage(): Promise<ListPage> | undefined;
}

/**
 * Looks for a message Twilio may have accepted while its answer was lost, in the Messages list:
 * filtered by To, From (not for a Messaging Service, which picks the number itself) and
 * DateSent on or after the attempt's day (UTC), newest first; a match is an outbound message
 * created no earlier than the attempt with the same body (a content message: showing every
 * variable's value). A message Twilio took but has not sent yet has no DateSent, so when the
 * dated list has none, the newest messages to the number are read too. Any failure of the list
 * itself is `failed`: the caller must not take it as "not there".
 */
export async function findSentMessage(client: Client, query: SentMessageQuery): Promise<SentMessageLookup> {
  const notBefore = query.since.getTime() - LOOKUP_CLOCK_SLACK_MS;
  const sender = query.from.startsWith('MG') ? {} : { from: query.from };
  const matches = (message: Listed) => isMatch(message, query, notBefore);
  try {
    const found: Listed[] = [];
    let page: ListPage = await client.messages.page({ to: query.to, ...sender, dateSentAfter: startOfUtcDay(query.since), pageSize: PAGE_SIZE });
    for (let pages = 1; ; pages += 1) {
      found.push(...page.instances.filter(matches));
      // Newest first: once a page reaches messages sent before the attempt, none further can match.
      const older = page.instances.some((message) => message.dateSent instanceof Date && message.dateSent.getTime() < notBefore);
      const next = older || pages >= MAX_PAGES ? undefined : page.nextPage();
      if (!next) break;
      page = await next;
    }
    if (found.length === 0) {
      const recent = await client.messages.page({ to: query.to, ...sender, pageSize: RECENT_UNSENT });
      found.push(...recent.instances.filter((message) => !message.dateSent && matches(message)));
    }
    if (found.length === 0) return { kind: 'not_found' };
    const oldestFirst = found.sort((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime());
    return { kind: 'found', matches: oldestFirst.map((message) => ({ sid: message.sid, status: message.status })) };
  } catch (error) {
    return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

function isMatch(message: Listed, query: SentMessageQuery, notBefore: number): boolean {
  if (!message.direction?.startsWith('outbound')) return false;
  if (query.from.startsWith('MG') && message.messagingServiceSid !== query.from) return false;
  const created = message.dateCreated instanceof Date ? message.dateCreated.getTime() : Number.NaN;
  // An unreadable date cannot be shown to be older than the attempt: it is not ruled out.
  if (!Number.isNaN(created) && created < notBefore) return false;
  const body = normalize(message.body ?? '');
  if (query.body !== undefined) return body === normalize(query.body);
  return Object.values(query.contentVariables ?? {}).every((value) => body.includes(normalize(value)));
}

function normalize(text: string): string {
  return text.normalize('NFC').replace(/\r\n/g, '\n').trim();
}

function startOfUtcDay(instant: Date): Date {
  return new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate()));
}
