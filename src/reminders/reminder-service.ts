import type { Reminder } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import { lockUserRows } from '../db/user-lock.js';
import type { Prisma } from '../generated/prisma/client.js';
import { prismaSqlExecutor } from '../queue/prisma-sql-executor.js';
import type { JobQueue } from '../queue/job-queue.js';
import type { Clock } from '../shared/clock.js';
import { normalizeFact as normalizeText } from '../memory/fact-service.js';
import { looselyMatches } from '../shared/loose-match.js';
import {
  describeRule,
  firstOccurrence,
  formatLocal,
  localToInstant,
  nextOccurrenceSkipping,
  nextOccurrenceWithLocal,
  recurrenceSchema,
  toLocalString,
  toRrule,
  type Recurrence,
} from './reminder-schedule.js';
import { occurrenceJob, REMINDER_QUEUE } from './reminder-queue.js';

/** A reminder as tools show it to the model. */
export interface ReminderView {
  id: string;
  text: string;
  status: string;
  /** Next occurrence, in the user's words ("Mon, Mar 2, 9:00 AM"), or null when none is left. */
  next: string | null;
  nextLocal: string | null;
  repeats: string | null;
}

/**
 * An expected failure, worded for the model to act on (often: ask the user). When several
 * reminders fit the words (or one only loosely: `weak`), they are the `candidates` Herald
 * numbers in its "Which one?"; `gone`: the reminder named by id no longer exists or is over.
 */
export type ReminderResult<Value> = { ok: true; value: Value } | { ok: false; error: string; candidates?: ReminderView[]; weak?: boolean; gone?: boolean };

/** What a reminder is, for create and update. */
export interface ReminderInput {
  text: string;
  /** Local wall-clock time of the (first) occurrence, e.g. 2026-03-02T09:00. */
  at: string;
  recurrence?: Recurrence | undefined;
  whenAmbiguous?: 'earlier' | 'later' | undefined;
}

/** Limits that keep reminders sane. */
export interface ReminderLimits {
  maxTextLength: number;
  maxActivePerUser: number;
}

/**
 * Creates, lists, changes and cancels reminders. Each change stores the reminder and
 * its next occurrence's delayed job in one transaction, so a reminder that exists always
 * has a job that will fire it; a job whose occurrence no longer matches the reminder (it
 * was moved or cancelled) finds nothing to do.
 */
export class ReminderService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    private readonly limits: ReminderLimits,
  ) {}

  async create(userId: string, timezone: string, input: ReminderInput): Promise<ReminderResult<ReminderView>> {
    const planned = this.plan(timezone, input);
    if (!planned.ok) return planned;
    return this.prisma.$transaction(async (transaction): Promise<ReminderResult<ReminderView>> => {
      // Counted under the user's lock, in the transaction that creates: plan steps run at once.
      await lockUserRows(transaction, 'reminder', userId);
      const full = await this.overLimit(transaction, userId);
      if (full) return full;
      const created = await transaction.reminder.create({
        data: { userId, text: planned.value.text, timezone, startLocal: planned.value.startLocal, rrule: planned.value.rrule, nextDueAt: planned.value.nextDueAt, createdAt: this.clock.now(), updatedAt: this.clock.now() },
      });
      await this.scheduleOccurrence(transaction, created.id, planned.value.nextDueAt);
      return { ok: true, value: toView(created) };
    });
  }

  /** The refusal when the user already has REMINDER_MAX_ACTIVE_PER_USER active reminders; call under {@link lockUserRows}. */
  private async overLimit(transaction: Prisma.TransactionClient, userId: string): Promise<{ ok: false; error: string } | undefined> {
    const active = await transaction.reminder.count({ where: { userId, status: 'active' } });
    if (active < this.limits.maxActivePerUser) return undefined;
    return { ok: false, error: `The user already has ${active} active reminders, the most Herald keeps. Ask them to cancel some first.` };
  }

  /** Active reminders (or all), optionally only those matching words of `query`. */
  async list(userId: string, options: { query?: string | undefined; includeInactive?: boolean | undefined } = {}): Promise<ReminderView[]> {
    const reminders = await this.prisma.reminder.findMany({
      where: { userId, ...(options.includeInactive ? {} : { status: 'active' }) },
      orderBy: [{ nextDueAt: 'asc' }, { createdAt: 'asc' }],
      take: 200,
    });
    return reminders.filter((reminder) => !options.query || matches(reminder.text, options.query)).map(toView);
  }

  /** Changes a reminder (found by id or by words of its text). */
  async update(
    userId: string,
    target: { reminderId?: string | undefined; match?: string | undefined },
    changes: { text?: string | undefined; at?: string | undefined; recurrence?: Recurrence | null | undefined; whenAmbiguous?: 'earlier' | 'later' | undefined },
  ): Promise<ReminderResult<ReminderView>> {
    // A one-off that has just fired can be moved by id ("move it to 6"): it is set again.
    const rearm = changes.at !== undefined && target.reminderId !== undefined;
    const found = await this.findOne(userId, target, 'change', rearm);
    if (!found.ok) return found;
    return this.prisma.$transaction(async (transaction) => {
      // Setting a fired one-off again makes one more active reminder: counted as a creation is.
      if (rearm) await lockUserRows(transaction, 'reminder', userId);
      // Locked and read again: a delivery of this reminder may have run since it was found
      // (advancing or completing it), and one starting now waits for this change.
      const reminder = await this.lockActive(transaction, found.value.id, rearm);
      if (!reminder) return { ok: false as const, error: `The reminder "${found.value.text}" is no longer active (it has just fired or been cancelled). Nothing was changed.` };
      if (reminder.status !== 'active') {
        const full = await this.overLimit(transaction, userId);
        if (full) return full;
      }
      const now = this.clock.now();
      if (changes.at === undefined && changes.recurrence === undefined) {
        // Only the text changes: the schedule, and the job that fires it, stay as they are.
        const planned = this.checkText(changes.text ?? reminder.text);
        if (!planned.ok) return planned;
        const saved = await transaction.reminder.update({ where: { id: reminder.id }, data: { text: planned.value, updatedAt: now } });
        return { ok: true as const, value: toView(saved) };
      }
      const at = changes.at ?? (reminder.nextDueAt ? toLocalString(reminder.nextDueAt, reminder.timezone) : reminder.startLocal);
      const keepsRule = changes.recurrence === undefined && reminder.rrule !== null;
      const planned = this.plan(
        reminder.timezone,
        { text: changes.text ?? reminder.text, at, recurrence: changes.recurrence ?? undefined, whenAmbiguous: changes.whenAmbiguous },
        keepsRule ? reminder.rrule! : undefined,
      );
      if (!planned.ok) return planned;
      const saved = await transaction.reminder.update({
        where: { id: reminder.id },
        data: { text: planned.value.text, startLocal: planned.value.startLocal, rrule: planned.value.rrule, nextDueAt: planned.value.nextDueAt, status: 'active', updatedAt: now },
      });
      // The old occurrence's job will find the due time changed and do nothing. Occurrences
      // skipped on the old schedule no longer name any occurrence (or, by chance, a wrong one).
      await transaction.reminderDelivery.deleteMany({ where: { reminderId: saved.id, status: 'skipped', dueAt: { gt: now } } });
      await this.scheduleOccurrence(transaction, saved.id, planned.value.nextDueAt);
      return { ok: true as const, value: toView(saved) };
    });
  }

  /** The user's active repeating reminders kept in another zone than `timezone`. */
  async recurringOutside(userId: string, timezone: string): Promise<number> {
    return this.prisma.reminder.count({ where: { userId, status: 'active', rrule: { not: null }, timezone: { not: timezone } } });
  }

  /**
   * Travel (issue 21 item 8): the user's repeating reminders follow them to `timezone` at
   * the same wall-clock time ("every day at 9" stays 9 where they are). One-off reminders are
   * instants and never move. Each is moved under its lock, its next occurrence re-planned.
   */
  async moveRecurringTo(userId: string, timezone: string): Promise<number> {
    const ids = await this.prisma.reminder.findMany({ where: { userId, status: 'active', rrule: { not: null }, timezone: { not: timezone } }, select: { id: true } });
    let moved = 0;
    for (const { id } of ids) {
      moved += await this.prisma.$transaction(async (transaction) => {
        const reminder = await this.lockActive(transaction, id, false);
        if (!reminder?.rrule) return 0;
        const now = this.clock.now();
        // Occurrences already recorded (skipped by the user) are stepped over: in a zone of the
        // same offset they are the same instants, and a reminder left pointing at a recorded
        // occurrence would find it handled and never arm the next one.
        const recorded = await transaction.reminderDelivery.findMany({ where: { reminderId: id, dueAt: { gt: now } }, select: { dueAt: true } });
        const nextDueAt = nextOccurrenceSkipping(reminder.rrule, reminder.startLocal, timezone, now, new Set(recorded.map((row) => row.dueAt.getTime()))) ?? null;
        await transaction.reminder.update({ where: { id }, data: { timezone, nextDueAt, ...(nextDueAt ? {} : { status: 'completed' as const }), updatedAt: now } });
        // The job for the old instant finds the due time changed and does nothing.
        if (nextDueAt) await this.scheduleOccurrence(transaction, id, nextDueAt);
        return 1;
      });
    }
    return moved;
  }

  /** Cancels a reminder (found by id or by words of its text). */
  async cancel(userId: string, target: { reminderId?: string | undefined; match?: string | undefined }): Promise<ReminderResult<ReminderView>> {
    const found = await this.findOne(userId, target, 'cancel');
    if (!found.ok) return found;
    // Only while still active: a one-off that fired meanwhile stays "completed".
    const cancelled = await this.prisma.reminder.updateMany({
      where: { id: found.value.id, status: 'active' },
      data: { status: 'cancelled', nextDueAt: null, updatedAt: this.clock.now() },
    });
    if (cancelled.count === 0) return { ok: false, error: `The reminder "${found.value.text}" is no longer active (it has just fired). Nothing was changed.` };
    return { ok: true, value: toView(await this.prisma.reminder.findUniqueOrThrow({ where: { id: found.value.id } })) };
  }

  /** Active reminders a bulk change would touch: every one, or those matching words of `match`, soonest first. */
  async select(userId: string, which: { match?: string | undefined; all?: boolean | undefined }): Promise<ReminderView[]> {
    const active = await this.prisma.reminder.findMany({ where: { userId, status: 'active' }, orderBy: [{ nextDueAt: 'asc' }, { createdAt: 'asc' }] });
    const chosen = which.match ? active.filter((reminder) => matches(reminder.text, which.match!)) : which.all ? active : [];
    return chosen.map(toView);
  }

  /** Cancels exactly these reminders (those still active); how many were cancelled. */
  async cancelMany(userId: string, ids: string[]): Promise<number> {
    const { count } = await this.prisma.reminder.updateMany({ where: { userId, id: { in: ids }, status: 'active' }, data: { status: 'cancelled', nextDueAt: null, updatedAt: this.clock.now() } });
    return count;
  }

  /**
   * Snoozes an occurrence, in the caller's transaction (the turn that answered "snooze 10"
   * commits it with its reply, so it happens once): a one-off reminder of the same text at
   * `at`, delivered exactly once like any reminder. A snooze of the same reminder still
   * waiting is replaced. Snoozing a snooze snoozes the reminder it came from.
   */
  async snooze(transaction: Prisma.TransactionClient, userId: string, reminderId: string, at: Date): Promise<ReminderView | undefined> {
    const reminder = await transaction.reminder.findFirst({ where: { id: reminderId, userId } });
    if (!reminder) return undefined;
    const rootId = reminder.snoozedFromId ?? reminder.id;
    const now = this.clock.now();
    await transaction.reminder.updateMany({ where: { userId, snoozedFromId: rootId, status: 'active' }, data: { status: 'cancelled', nextDueAt: null, updatedAt: now } });
    const created = await transaction.reminder.create({
      data: { userId, text: reminder.text, timezone: reminder.timezone, startLocal: toLocalString(at, reminder.timezone), rrule: null, nextDueAt: at, snoozedFromId: rootId, createdAt: now, updatedAt: now },
    });
    await this.scheduleOccurrence(transaction, created.id, at);
    return toView(created);
  }

  /**
   * "Done" to an occurrence, in the caller's transaction: the delivery is marked
   * acknowledged, and a snooze of it still waiting is cancelled (it is done).
   */
  async acknowledge(transaction: Prisma.TransactionClient, userId: string, reminderId: string, dueAt: Date | null): Promise<void> {
    const now = this.clock.now();
    if (dueAt) await transaction.reminderDelivery.updateMany({ where: { reminderId, userId, dueAt }, data: { acknowledgedAt: now } });
    const reminder = await transaction.reminder.findFirst({ where: { id: reminderId, userId }, select: { id: true, snoozedFromId: true } });
    if (!reminder) return;
    await transaction.reminder.updateMany({ where: { userId, snoozedFromId: reminder.snoozedFromId ?? reminder.id, status: 'active' }, data: { status: 'cancelled', nextDueAt: null, updatedAt: now } });
  }

  /** A reminder (any status) of this user, as the model sees it. */
  async view(userId: string, reminderId: string): Promise<ReminderView | undefined> {
    const reminder = await this.prisma.reminder.findFirst({ where: { id: reminderId, userId } });
    return reminder ? toView(reminder) : undefined;
  }

  /**
   * Skips one future occurrence of a repeating reminder ahead of time (its event's occurrence
   * was moved or deleted): a `skipped` delivery row, which delivery steps over. When it is
   * the next one due, the reminder moves on to the following occurrence at once (the old
   * job then finds the due time changed and does nothing).
   */
  async skipOccurrence(userId: string, reminderId: string, dueAt: Date): Promise<void> {
    const now = this.clock.now();
    if (dueAt.getTime() <= now.getTime()) return;
    await this.prisma.$transaction(async (transaction) => {
      const reminder = await this.lockActive(transaction, reminderId);
      if (!reminder || reminder.userId !== userId || !reminder.rrule) return;
      await transaction.reminderDelivery.createMany({ data: [{ reminderId, userId, dueAt, status: 'skipped', handledAt: now }], skipDuplicates: true });
      if (reminder.nextDueAt?.getTime() !== dueAt.getTime()) return;
      const skipped = await transaction.reminderDelivery.findMany({ where: { reminderId, status: 'skipped', dueAt: { gt: dueAt } }, select: { dueAt: true } });
      const next = nextOccurrenceSkipping(reminder.rrule, reminder.startLocal, reminder.timezone, dueAt, new Set(skipped.map((row) => row.dueAt.getTime())));
      await transaction.reminder.update({ where: { id: reminderId }, data: next ? { nextDueAt: next, updatedAt: now } : { nextDueAt: null, status: 'completed', updatedAt: now } });
      if (next) await this.scheduleOccurrence(transaction, reminderId, next);
    });
  }

  /**
   * Enqueues the delayed job that fires one occurrence (at its due time), or, with
   * `recheckAt`, the job that makes sure an occurrence already handled went out.
   */
  async scheduleOccurrence(executor: Prisma.TransactionClient, reminderId: string, dueAt: Date, recheckAt?: Date): Promise<void> {
    const job = occurrenceJob(reminderId, dueAt, recheckAt);
    const id = await this.queue.enqueue(REMINDER_QUEUE, job.data, {
      startAfter: job.startAfter,
      priority: job.priority,
      transaction: prismaSqlExecutor(executor),
    });
    // pg-boss stores nothing (and answers null) when the queue does not exist yet: a reminder
    // without its job would never fire, so the whole change is rolled back instead.
    if (id === null) throw new Error(`the ${REMINDER_QUEUE} queue does not exist yet; the reminder was not saved`);
  }

  /** Validates a reminder and works out its rule and first due instant. */
  private plan(
    timezone: string,
    input: ReminderInput,
    existingRule?: string,
  ): ReminderResult<{ text: string; startLocal: string; rrule: string | null; nextDueAt: Date }> {
    const checked = this.checkText(input.text);
    if (!checked.ok) return checked;
    const text = checked.value;
    let startLocal = input.at.slice(0, 19);
    const now = this.clock.now();
    if (input.recurrence) {
      const valid = recurrenceSchema.safeParse(input.recurrence);
      if (!valid.success) return { ok: false, error: `That repeat rule is not valid: ${valid.error.issues.map((issue) => issue.message).join('; ')}. Nothing was saved.` };
    }
    const rule = input.recurrence ? toRrule(input.recurrence) : existingRule;
    if (!rule) {
      const resolved = localToInstant(startLocal, timezone, input.whenAmbiguous);
      if (!resolved.ok) return { ok: false, error: `${resolved.problem.message} Nothing was saved; ask the user which time they mean.` };
      if (resolved.instant.getTime() <= now.getTime()) {
        return {
          ok: false,
          error: `That time (${formatLocal(resolved.instant, timezone)}) has already passed; it is now ${formatLocal(now, timezone)}. Nothing was saved; ask the user what they meant (perhaps the same time tomorrow?).`,
        };
      }
      return { ok: true, value: { text, startLocal, rrule: null, nextDueAt: resolved.instant } };
    }
    const check = localToInstant(startLocal, timezone, input.whenAmbiguous ?? 'earlier');
    if (!check.ok && check.problem.kind === 'invalid') return { ok: false, error: `${check.problem.message}. Nothing was saved.` };
    let first = firstOccurrence(rule, startLocal, timezone);
    if (!first) return { ok: false, error: 'That repeat rule never produces a reminder (for example an end date before the start, or a day that never exists). Nothing was saved; ask the user to rephrase.' };
    if (first.getTime() <= now.getTime()) {
      // The series starts at its first occurrence still ahead: the rule is re-anchored
      // there, so a count ("5 times") counts reminders the user will actually get.
      const upcoming = nextOccurrenceWithLocal(rule, startLocal, timezone, now);
      if (!upcoming) return { ok: false, error: 'Every occurrence of that repeat rule is already in the past. Nothing was saved; ask the user what they meant.' };
      [first, startLocal] = [upcoming.instant, upcoming.local];
    }
    return { ok: true, value: { text, startLocal, rrule: rule, nextDueAt: first } };
  }

  /** The reminder text, tidied, or why it cannot be one. */
  private checkText(raw: string): ReminderResult<string> {
    const text = raw.trim().replace(/\s+/g, ' ');
    if (text.length === 0) return { ok: false, error: 'The reminder needs some text: what should Herald remind the user about?' };
    if (text.length > this.limits.maxTextLength) {
      return { ok: false, error: `The reminder text is ${text.length} characters; reminders can be at most ${this.limits.maxTextLength}. Ask the user for a shorter version. Nothing was saved.` };
    }
    return { ok: true, value: text };
  }

  /** The reminder locked, if active (or, with `orCompleted`, a one-off that has fired). */
  private async lockActive(transaction: Prisma.TransactionClient, id: string, orCompleted = false): Promise<Reminder | undefined> {
    await transaction.$queryRaw`SELECT id FROM "Reminder" WHERE id = ${id}::uuid FOR UPDATE`;
    const reminder = await transaction.reminder.findUnique({ where: { id } });
    return reminder?.status === 'active' || (orCompleted && reminder?.status === 'completed') ? reminder : undefined;
  }

  private async findOne(
    userId: string,
    target: { reminderId?: string | undefined; match?: string | undefined },
    verb: string,
    orCompleted = false,
  ): Promise<ReminderResult<Reminder>> {
    if (target.reminderId) {
      const reminder = await this.prisma.reminder.findFirst({ where: { id: target.reminderId, userId, status: { in: orCompleted ? ['active', 'completed'] : ['active'] } } });
      return reminder ? { ok: true, value: reminder } : { ok: false, gone: true, error: `No active reminder has id ${target.reminderId} (it was cancelled, has fired, or never existed). Nothing was changed.` };
    }
    const active = await this.prisma.reminder.findMany({ where: { userId, status: 'active' }, orderBy: { nextDueAt: 'asc' } });
    const candidates = target.match ? active.filter((reminder) => matches(reminder.text, target.match!)) : [];
    if (candidates.length === 1) return { ok: true, value: candidates[0]! };
    const listing = (reminders: Reminder[]) => reminders.slice(0, 10).map((reminder, index) => `${index + 1}) "${reminder.text}" (${toView(reminder).next ?? 'no time'}, id ${reminder.id})`).join('; ');
    if (candidates.length === 0) {
      // One reminder a typo away ("dentsit"): Herald asks "Did you mean …?".
      const words = target.match ? matchWords(target.match) : [];
      const loose = active.filter((reminder) => looselyMatches(normalizeText(reminder.text), words));
      return {
        ok: false,
        ...(loose.length === 1 ? { candidates: loose.map(toView), weak: true } : {}),
        error: `No active reminder matches "${target.match ?? ''}", so nothing was changed. ${active.length > 0 ? `Active reminders: ${listing(active)}.` : 'The user has no active reminders.'}${loose.length === 1 ? ` Perhaps "${loose[0]!.text}" was meant: Herald asks the user.` : ''}`,
      };
    }
    return {
      ok: false,
      candidates: candidates.slice(0, 10).map(toView),
      error: `${candidates.length} reminders match "${target.match}": ${listing(candidates)}. Nothing was changed; Herald asks the user which one to ${verb} (complete with needsClarification).`,
    };
  }
}

/** The words of a reminder query that name it ("the dentist reminder" → dentist). */
function matchWords(query: string): string[] {
  return normalizeText(query).split(' ').filter((word) => word.length > 0 && !['the', 'my', 'a', 'an', 'one', 'reminder', 'reminders', 'to', 'about', 'all'].includes(word));
}

/** True when every word of `query` appears in `text` (case and punctuation ignored). */
export function matches(text: string, query: string): boolean {
  const haystack = ` ${normalizeText(text)} `;
  const words = matchWords(query);
  return words.length > 0 && words.every((word) => haystack.includes(word));
}

/** A reminder as the model sees it. */
function toView(reminder: Reminder): ReminderView {
  return {
    id: reminder.id,
    text: reminder.text,
    status: reminder.status,
    next: reminder.nextDueAt ? formatLocal(reminder.nextDueAt, reminder.timezone) : null,
    nextLocal: reminder.nextDueAt ? toLocalString(reminder.nextDueAt, reminder.timezone) : null,
    repeats: reminder.rrule ? describeRule(reminder.rrule, reminder.startLocal) : null,
  };
}

