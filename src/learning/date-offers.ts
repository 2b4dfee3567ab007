import { DateTime } from 'luxon';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { addressFor } from '../outbox/outbound-draft.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import { confirmationReply } from '../questions/confirmation-replies.js';
import { confirmationQuestion } from '../questions/pending-question.js';
import type { PendingQuestions } from '../questions/pending-questions.js';
import type { TurnScheduler } from '../queue/turn-queue.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';
import { say, textLanguageOf } from '../texts/texts.js';
import type { QuietHours } from '../users/quiet-hours.js';
import type { LearnedDate } from './learned-facts.js';

/** How long an offer waits for its YES: a day (it comes unasked, so the user may not be looking). */
const OFFER_TTL_MS = 24 * 60 * 60 * 1000;

/** The tool YES runs: scheduler-agent's, with the yearly reminder's exact arguments. */
const CREATE_REMINDER = { agent: 'scheduler-agent', tool: 'create_scheduled_job' } as const;

/** What an offer does now: asked, held for quiet hours (the caller asks again at `until`), or nothing to ask. */
export type OfferOutcome = { kind: 'asked'; key: string } | { kind: 'held'; until: Date } | { kind: 'none' };

/** The key a date is offered under, once ever: "birthday:dana". */
function offerKey(date: Pick<LearnedDate, 'kind' | 'who'>): string {
  return `${date.kind}:${date.who.trim().toLowerCase().replace(/\s+/g, ' ')}`;
}

/**
 * Important dates become offers (issue 21 item 7): a learned birthday or anniversary (or the
 * birthday of a contact the user told Herald about) leads to one question, "Want a reminder
 * the day before Dana's birthday?", kept as a pending confirmation whose YES creates a yearly
 * reminder through scheduler-agent's own tool. Each date is offered once, ever
 * (User.offeredDates, claimed in the same transaction as the question); nothing is set
 * unasked; quiet hours hold the offer until they end.
 */
export class DateOffers {
  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      outbox: OutboxService;
      questions: PendingQuestions;
      scheduler: TurnScheduler;
      quietHours: QuietHours;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** Offers the first of `dates` not offered before (one question at a time). */
  async offer(userId: string, dates: LearnedDate[]): Promise<OfferOutcome> {
    const { prisma, clock } = this.deps;
    const user = await prisma.user.findUnique({ where: { id: userId } });
    if (!user || user.optedOut) return { kind: 'none' };
    const offered = new Set(user.offeredDates);
    const date = dates.find((candidate) => !offered.has(offerKey(candidate)));
    if (!date) return { kind: 'none' };
    const now = clock.now();
    const until = this.deps.quietHours.quietEndsAt(user, now);
    if (until) return { kind: 'held', until };
    // A question the user has not answered yet stands: this one waits for another pass.
    if ((await prisma.pendingQuestion.count({ where: { userId, status: 'pending', expiresAt: { gt: now } } })) > 0) return { kind: 'none' };

    const language = textLanguageOf(user.language) ?? 'en';
    const dayBefore = nextDayBefore(date, user.timezone, now);
    if (!dayBefore) return { kind: 'none' };
    const when = DateTime.fromObject({ month: date.month, day: date.day }, { zone: user.timezone }).setLocale(language).toFormat('d MMMM');
    const own = date.who.trim().toLowerCase() === 'me';
    const question =
      date.kind === 'birthday' && !own ? say(language, 'dateOfferBirthday', { who: date.who, date: when }) : say(language, 'dateOfferAnniversary', { date: when });
    const reminderText = date.kind === 'birthday' && !own ? say(language, 'dateReminderBirthday', { who: date.who }) : say(language, 'dateReminderAnniversary');
    const text = `${question} ${confirmationReply('ask', language)}`;
    const key = offerKey(date);
    const asked = await prisma.$transaction(async (transaction) => {
      // Once ever, across instances and retries: the key is claimed with the question.
      const claimed = await transaction.$executeRaw`
        UPDATE "User" SET "offeredDates" = array_append(coalesce("offeredDates", '{}'), ${key})
        WHERE id = ${userId}::uuid AND NOT (${key} = ANY(coalesce("offeredDates", '{}')))`;
      if (claimed === 0) return false;
      const channel = user.preferredChannel;
      const staged = await this.deps.outbox.stage(transaction, { userId, kind: 'system', channel, toAddress: addressFor(user.phone, channel), text });
      await transaction.message.create({
        data: { userId, role: 'assistant', kind: 'notice', content: text, channel, tokenCount: estimateTokens(text), outboundGroupId: staged.groupId, createdAt: now },
      });
      await this.deps.questions.stage(
        transaction,
        { userId, channel },
        [
          confirmationQuestion({
            question,
            actions: [
              {
                ...CREATE_REMINDER,
                input: { text: reminderText, at: dayBefore, recurrence: { frequency: 'yearly' } },
                question,
                done: say(language, 'dateOfferDone', { date: DateTime.fromISO(dayBefore).setLocale(language).toFormat('d MMMM') }),
              },
            ],
          }),
        ],
        { ttlMs: OFFER_TTL_MS },
      );
      await this.deps.scheduler.schedule(userId, { transaction });
      return true;
    });
    if (!asked) return { kind: 'none' };
    this.deps.scheduler.wake();
    this.deps.logger.info({ userId, event: 'date_offered', kind: date.kind }, 'offered a reminder for an important date');
    return { kind: 'asked', key };
  }

  /** Birthdays of contacts the user told Herald about (not imported address books), not offered yet. */
  async contactDates(userId: string): Promise<LearnedDate[]> {
    const contacts = await this.deps.prisma.contact.findMany({ where: { userId, source: 'user', birthday: { not: null } }, select: { id: true, name: true, birthday: true }, take: 50 });
    return contacts.flatMap((contact) => {
      const match = /(\d{2})-(\d{2})$/.exec(contact.birthday ?? '');
      if (!match) return [];
      const first = contact.name.split(/\s+/)[0] ?? contact.name;
      return [{ kind: 'birthday' as const, who: first, month: Number(match[1]), day: Number(match[2]), factId: contact.id }];
    });
  }
}

/** The next day before the date, at 09:00 local, as the reminder's wall-clock start ("2027-03-11T09:00"). */
function nextDayBefore(date: Pick<LearnedDate, 'month' | 'day'>, zone: string, now: Date): string | undefined {
  const local = DateTime.fromJSDate(now, { zone });
  for (const year of [local.year, local.year + 1, local.year + 2, local.year + 3, local.year + 4]) {
    const day = DateTime.fromObject({ year, month: date.month, day: date.day, hour: 9 }, { zone });
    if (!day.isValid) continue; // 29 February outside a leap year
    const before = day.minus({ days: 1 });
    if (before > local) return before.toFormat("yyyy-MM-dd'T'HH:mm");
  }
  return undefined;
}
