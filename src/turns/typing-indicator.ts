import type { Message } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { TypingApi } from '../outbox/twilio-typing.js';
import type { Clock } from '../shared/clock.js';
import { describeError } from '../shared/errors.js';

/** A running indicator: stop it when the reply or the progress message is about to go. */
export interface TypingSession {
  stop(): void;
  /** Whether this session claimed the message (and so sends for it); the turn never waits on it. */
  readonly claimed: Promise<boolean>;
}

const stopped: TypingSession = { stop() {}, claimed: Promise.resolve(false) };

/**
 * WhatsApp's "typing…" while a turn waits on the model (issue 24, item 3). Started when the
 * turn is going to call the model (never for answers that need none), for the latest message
 * of the turn; sent again every `everyMs` (TYPING_INDICATOR_EVERY_MS, 20 s: it shows for up
 * to 25 s) until stopped. Nothing here is awaited by the turn: a slow or failing Twilio never
 * delays it, and a failure is logged once per turn. Each message gets it at most once:
 * claiming `Message.typingIndicatedAt` comes first, so a turn that runs again after a crash
 * sends none.
 */
export class TypingIndicators {
  constructor(
    private readonly deps: { prisma: PrismaClient; api: TypingApi; clock: Clock; everyMs: number },
  ) {}

  /** Starts the indicator for a WhatsApp message; for any other channel, or a message with no sid, does nothing. */
  start(message: Pick<Message, 'id' | 'channel' | 'twilioSid'>, logger: Logger): TypingSession {
    const sid = message.twilioSid;
    if (message.channel !== 'whatsapp' || !sid || !/^(?:SM|MM)/.test(sid)) return stopped;
    let done = false;
    let failed = false;
    let timer: NodeJS.Timeout | undefined;
    const send = async (first: boolean) => {
      try {
        await this.deps.api.send(sid);
        if (first) logger.debug({ messageId: message.id }, 'typing indicator sent');
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        // Once per turn; a 4xx (the message is too old, or not one Twilio can mark) will not
        // get better: stop trying. The turn goes on either way.
        if (!failed) logger.warn({ messageId: message.id, httpStatus: typeof status === 'number' ? status : undefined, error: describeError(error) }, 'typing indicator failed; the turn goes on');
        failed = true;
        if (typeof status === 'number' && status >= 400 && status < 500) stop();
      }
    };
    const stop = () => {
      done = true;
      if (timer) clearInterval(timer);
    };
    const claimed = (async () => {
      try {
        const { count } = await this.deps.prisma.message.updateMany({ where: { id: message.id, typingIndicatedAt: null }, data: { typingIndicatedAt: this.deps.clock.now() } });
        if (count === 0) return false;
        if (done) return true;
        timer = setInterval(() => void send(false), this.deps.everyMs);
        timer.unref();
        void send(true);
        return true;
      } catch (error) {
        if (!failed) logger.warn({ messageId: message.id, error: describeError(error) }, 'typing indicator could not be claimed; none sent');
        failed = true;
        return false;
      }
    })();
    return { stop, claimed };
  }
}
