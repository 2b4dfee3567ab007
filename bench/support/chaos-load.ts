import type { FakeTwilioServer, SentTwilioMessage } from '../../test/fakes/fake-twilio-server.js';
import { postInbound } from '../../test/helpers/crash-takeover.js';
import type { HeraldProcess } from '../../test/helpers/herald-process.js';
import { progressMessage } from '../../src/texts/fallback-replies.js';
import { percentile } from './report.js';
import type { HeraldFleet } from './chaos-fleet.js';
import { ANSWER, PUBLIC_BASE_URL } from './chaos-settings.js';

/** One sender of the load: one message, where it went, what the webhook answered. */
export interface SenderRecord {
  from: string;
  sentAt: number;
  instance: HeraldProcess;
  /** The webhook's HTTP status; undefined until it answers, or when the request failed. */
  status?: number;
  /** When the webhook answered (or failed). */
  answeredAt?: number;
  /** The request failed without an answer (the process died, the connection was refused). */
  error?: string;
}

const TEXT = 'Can you remind me about the meeting?';
/** Letters and digits only: an SMS's text may have had its dashes and quotes made plain for GSM-7. */
const letters = (text: string | null) => (text ?? '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
/** The one "on it" note a turn running past PROGRESS_AFTER_MS sends: not a reply, not counted as one. */
const PROGRESS = letters(progressMessage(null, TEXT));

/** A distinct US mobile number per sender (SMS), so replies are told apart by `To`. */
function senderNumber(index: number): string {
  return `+1415${String(6_000_000 + index).padStart(7, '0')}`;
}

/** Posts one sender's message to the instance the fleet picks; the record is filled in when the webhook answers. */
export function send(fleet: HeraldFleet, fakeTwilio: FakeTwilioServer, index: number): { record: SenderRecord; posted: Promise<void> } {
  const instance = fleet.next();
  const record: SenderRecord = { from: senderNumber(index), sentAt: Date.now(), instance };
  const posted = postInbound(instance, PUBLIC_BASE_URL, fakeTwilio, { from: record.from, body: `${TEXT} (${index})` }).then(
    (status) => {
      record.status = status;
      record.answeredAt = Date.now();
    },
    (error: unknown) => {
      record.error = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      record.answeredAt = Date.now();
    },
  );
  return { record, posted };
}

/**
 * A paced load: new senders, evenly `perSecond` a second from now until `endsAt()` (read
 * before each one: a scenario sets it once its fault is over), each posting one signed
 * webhook (not awaited: a slow webhook does not hold the next one back, as with Twilio).
 * Resolves when the last one is posted; `posts` settle when every webhook has answered or failed.
 */
export async function pacedLoad(options: {
  fleet: HeraldFleet;
  fakeTwilio: FakeTwilioServer;
  perSecond: number;
  endsAt(): number;
  /** Stops the load early (the scenario failed). */
  signal?: AbortSignal;
}): Promise<{ senders: SenderRecord[]; posts: Promise<void>[] }> {
  const senders: SenderRecord[] = [];
  const posts: Promise<void>[] = [];
  const started = Date.now();
  for (let index = 0; ; index += 1) {
    const due = started + (index * 1000) / options.perSecond;
    if (due >= options.endsAt()) break;
    if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    if (options.signal?.aborted || due >= options.endsAt()) break;
    const { record, posted } = send(options.fleet, options.fakeTwilio, index);
    senders.push(record);
    posts.push(posted);
  }
  return { senders, posts };
}

/**
 * Waits, on the fake Twilio's events, until every one of `expected` has at least one reply,
 * or `deadline` (a Date.now() time) passes. Says whether every one was answered.
 */
export async function waitForAnswers(fakeTwilio: FakeTwilioServer, expected: Iterable<string>, deadline: number): Promise<boolean> {
  const waiting = new Set(expected);
  let seen = 0;
  for (;;) {
    for (; seen < fakeTwilio.messages.length; seen += 1) waiting.delete(fakeTwilio.messages[seen]!.to);
    if (waiting.size === 0) return true;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return false;
    await fakeTwilio.waitForMessages(fakeTwilio.messages.length + 1, remaining).catch(() => undefined);
  }
}

/** What happened to the senders of one scenario. */
export interface Tally {
  sent: number;
  answeredOnce: number;
  duplicated: number;
  /** Replies to the duplicated senders, in all. */
  duplicateReplies: number;
  lost: number;
  lostInFlight: number;
  /** Webhooks answered other than 200, or not answered at all. */
  webhookFailures: number;
  /** Replies that were not the model's answer alone (an apology, a late note). */
  otherReplies: number;
  /** "On it" notes of turns that ran long (not replies). */
  progressNotes: number;
  replyP50Ms: number;
  replyP99Ms: number;
  /** How long the webhooks took to answer (200 or not). */
  webhookP99Ms: number;
  /** When Twilio accepted the last reply to a sender (epoch ms), if any. */
  lastReplyAt: number | undefined;
  /** The same, among senders who wrote before `sentBefore`: when the backlog of the fault was cleared. */
  lastReplyToEarlierAt: number | undefined;
  /** The three slowest first replies. */
  slowest: Array<{ sender: SenderRecord; replyMs: number }>;
}

/**
 * Counts replies per sender from the messages Twilio accepted (accepted counts as delivered,
 * even when the answer to Herald was dropped; an "on it" note is not a reply). A sender with
 * no reply is lost, or lost in flight when `inFlight` says its webhook was cut by the
 * scenario (a killed process).
 */
export function tally(
  senders: SenderRecord[],
  messages: SentTwilioMessage[],
  options: { inFlight?: (sender: SenderRecord) => boolean; sentBefore?: number } = {},
): Tally {
  const inFlight = options.inFlight ?? (() => false);
  const sentBefore = options.sentBefore ?? Number.POSITIVE_INFINITY;
  const replies = new Map<string, SentTwilioMessage[]>();
  let progressNotes = 0;
  for (const message of messages) {
    if (letters(message.body) === PROGRESS) progressNotes += 1;
    else replies.set(message.to, [...(replies.get(message.to) ?? []), message]);
  }
  const result: Tally = { sent: senders.length, answeredOnce: 0, duplicated: 0, duplicateReplies: 0, lost: 0, lostInFlight: 0, webhookFailures: 0, otherReplies: 0, progressNotes, replyP50Ms: Number.NaN, replyP99Ms: Number.NaN, webhookP99Ms: Number.NaN, lastReplyAt: undefined, lastReplyToEarlierAt: undefined, slowest: [] };
  const latencies: number[] = [];
  const answered: Array<{ sender: SenderRecord; replyMs: number }> = [];
  for (const sender of senders) {
    const answers = replies.get(sender.from) ?? [];
    if (sender.status !== 200) result.webhookFailures += 1;
    if (answers.length === 0) {
      if (inFlight(sender)) result.lostInFlight += 1;
      else result.lost += 1;
      continue;
    }
    if (answers.length === 1) result.answeredOnce += 1;
    else {
      result.duplicated += 1;
      result.duplicateReplies += answers.length;
    }
    result.otherReplies += answers.filter((answer) => answer.body !== ANSWER).length;
    latencies.push(answers[0]!.dateCreated.getTime() - sender.sentAt);
    answered.push({ sender, replyMs: answers[0]!.dateCreated.getTime() - sender.sentAt });
    const last = Math.max(...answers.map((answer) => answer.dateCreated.getTime()));
    result.lastReplyAt = Math.max(result.lastReplyAt ?? 0, last);
    if (sender.sentAt < sentBefore) result.lastReplyToEarlierAt = Math.max(result.lastReplyToEarlierAt ?? 0, last);
  }
  result.webhookP99Ms = percentile(senders.flatMap((sender) => (sender.answeredAt === undefined ? [] : [sender.answeredAt - sender.sentAt])), 0.99);
  result.replyP50Ms = percentile(latencies, 0.5);
  result.replyP99Ms = percentile(latencies, 0.99);
  result.slowest = answered.sort((left, right) => right.replyMs - left.replyMs).slice(0, 3);
  return result;
}

/** The webhook failures by kind ("500 ×3, ECONNREFUSED ×2"), for the notes. */
export function webhookFailureKinds(senders: SenderRecord[]): string {
  const kinds = new Map<string, number>();
  for (const sender of senders) {
    if (sender.status === 200) continue;
    const kind = sender.status !== undefined ? String(sender.status) : (sender.error ?? 'no answer');
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].map(([kind, count]) => `${kind} ×${count}`).join(', ');
}
