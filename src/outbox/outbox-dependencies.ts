import type pg from 'pg';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { UserService } from '../users/user-service.js';
import type { MessageTransport } from './message-transport.js';
import type { SendablePart } from './outbound-draft.js';
import type { RetryPolicy } from './retry-policy.js';

/** What the outbox needs besides the database. */
export interface OutboxDependencies {
  prisma: PrismaClient;
  /** The pool Prisma runs on: the per-message hot path records sends on it in plain SQL. */
  pool: pg.Pool;
  transport: MessageTransport;
  users: UserService;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  policy: RetryPolicy;
  /** SMS_MAX_SEGMENTS: the most segments one SMS reply may cost; longer replies are cut. */
  smsMaxSegments?: number;
  /**
   * Configured senders per channel. RCS: the Messaging Service with the RCS sender
   * (TWILIO_MESSAGING_SERVICE_SID), which falls back to SMS itself; without one, RCS users
   * are answered from the SMS sender.
   */
  senders: { sms?: string | undefined; whatsapp?: string | undefined; rcs?: string | undefined };
  /** Twilio posts delivery updates here (absent on the console transport). */
  statusCallbackUrl?: string | undefined;
  /** Longest back-off waited in-process; longer ones are rescheduled as jobs. */
  inlineWaitLimitMs?: number;
  /** Attempts one flush makes on a part in-process (default 5) before handing it back to the queue. */
  inlineAttempts?: number;
  /**
   * REPLY_LATE_NOTE_AFTER_MS: a reply whose first part goes out longer than this after it was
   * written starts with "Sorry for the delay —" (src/outbox/late-reply-note.ts). Unset: never.
   */
  lateNoteAfterMs?: number | undefined;
  /**
   * Told when a group flush (a reminder's, a routine run's, a notice's) ends with a part
   * waiting for its retry time: the caller schedules the user's drain for then, which delivers
   * every part of the user in order. Durable (a queued job), so a restart loses nothing.
   */
  onHandBack?: (userId: string, at: Date) => Promise<void>;
  /** How long a part may sit in `dispatching` before a crashed sender's claim lapses. */
  dispatchClaimMs?: number;
  sleep?: (milliseconds: number) => Promise<void>;
  random?: () => number;
  /** Told of every send attempt's outcome (metrics, traces); never its body or address. */
  onSend?: (event: OutboxSendEvent) => void;
  /** Told when Twilio refuses a content Herald made (21655, 21656): its cached SID is forgotten. */
  onContentRefused?: (contentSid: string) => void;
}

/** One send attempt, as observability sees it. */
export interface OutboxSendEvent {
  part: Pick<SendablePart, 'turnId' | 'kind' | 'channel' | 'partIndex'>;
  /** `expired`: failed for good after Twilio kept failing for the whole retry window. */
  status: 'sent' | 'retrying' | 'failed' | 'expired';
  errorCode?: number | undefined;
  /** Wall-clock milliseconds around the transport call. */
  startedAt: number;
  endedAt: number;
}
