import type { Prisma, Routine, RoutineStatus } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import { lockUserRows } from '../db/user-lock.js';
import type { JobQueue } from '../queue/job-queue.js';
import { prismaSqlExecutor } from '../queue/prisma-sql-executor.js';
import type { Clock } from '../shared/clock.js';
import { matches } from '../reminders/reminder-service.js';
import { describeRule, firstOccurrence, formatLocal, localToInstant, nextOccurrence, nextOccurrenceWithLocal, toLocalString } from '../reminders/reminder-schedule.js';
import { ROUTINE_QUEUE, routineJob } from './routine-queue.js';
import { routineRule, tooFrequent, type RoutineRecurrence } from './routine-schedule.js';

/** A routine as tools, pages and MY DATA show it. */
export interface RoutineView {
  id: string;
  name: string;
  instruction: string;
  condition: string | null;
  status: RoutineStatus;
  /** The next run in the user's words ("Mon, Mar 2, 7:00 AM"), or null. */
  next: string | null;
  nextLocal: string | null;
  repeats: string;
}

/** An expected failure, worded for the model to act on; `candidates` when several routines fit the words. */
export type RoutineResult<Value> = { ok: true; value: Value } | { ok: false; error: string; candidates?: RoutineView[] };

/** What a routine is, for create. */
export interface RoutineInput {
  name?: string | undefined;
  instruction: string;
  condition?: string | null | undefined;
  /** Local wall-clock time of the first run, e.g. 2026-03-02T07:00. */
  at: string;
  recurrence: RoutineRecurrence;
  whenAmbiguous?: 'earlier' | 'later' | undefined;
}

/** What may change. */
export interface RoutineChanges {
  name?: string | undefined;
  instruction?: string | undefined;
  condition?: string | null | undefined;
  at?: string | undefined;
  recurrence?: RoutineRecurrence | undefined;
  status?: RoutineStatus | undefined;
  whenAmbiguous?: 'earlier' | 'later' | undefined;
}

/** How a routine is found: by id or by words of its name or instruction. */
export interface RoutineTarget {
  routineId?: string | undefined;
  match?: string | undefined;
}

/** ROUTINES_PER_USER and the longest instruction (and condition) kept. */
export interface RoutineLimits {
  maxPerUser: number;
  maxInstructionLength: number;
}

/**
 * Creates, lists, changes, pauses and deletes routines. Each change stores the routine and
 * its next run's delayed job in one transaction, so an active routine always has a job; a job
 * whose occurrence no longer matches (moved, paused, deleted) finds nothing to do.
 */
export class RoutineService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    readonly limits: RoutineLimits,
  ) {}

  async create(userId: string, timezone: string, input: RoutineInput): Promise<RoutineResult<RoutineView>> {
    const text = this.checkText(input.instruction, input.condition);
    if (!text.ok) return text;
    const planned = this.plan(timezone, input.at, input.recurrence, input.whenAmbiguous);
    if (!planned.ok) return planned;
    const now = this.clock.now();
    return this.prisma.$transaction(async (transaction): Promise<RoutineResult<RoutineView>> => {
      // Counted under the user's lock, in the transaction that creates: steps of one plan run
      // at once, and two that each saw 9 of 10 must not both save.
      await lockUserRows(transaction, 'routine', userId);
      const count = await transaction.routine.count({ where: { userId } });
      if (count >= this.limits.maxPerUser) {
        return { ok: false, error: `The user already has ${count} routines, the most Herald keeps (${this.limits.maxPerUser}). Nothing was saved: ask them to delete one first.` };
      }
      const created = await transaction.routine.create({
        data: {
          userId,
          name: nameOf(input.name, text.value.instruction),
          instruction: text.value.instruction,
          condition: text.value.condition,
          timezone,
          startLocal: planned.value.startLocal,
          rrule: planned.value.rule,
          nextDueAt: planned.value.nextDueAt,
          createdAt: now,
          updatedAt: now,
        },
      });
      await this.scheduleRun(transaction, created.id, planned.value.nextDueAt);
      return { ok: true, value: toRoutineView(created) };
    });
  }

  /** The user's routines, soonest first, optionally only those matching words of `query`. */
  async list(userId: string, options: { query?: string | undefined } = {}): Promise<RoutineView[]> {
    const routines = await this.prisma.routine.findMany({ where: { userId }, orderBy: [{ status: 'asc' }, { nextDueAt: 'asc' }, { createdAt: 'asc' }] });
    return routines.filter((routine) => !options.query || matchesRoutine(routine, options.query)).map(toRoutineView);
  }

  /** How many routines each of these users has (an owner's USERS). */
  async countByUser(userIds: string[]): Promise<Map<string, number>> {
    const rows = await this.prisma.routine.groupBy({ by: ['userId'], where: { userId: { in: userIds } }, _count: { _all: true } });
    return new Map(rows.map((row) => [row.userId, row._count._all]));
  }

  /** Changes a routine: its words, its schedule, or pauses and resumes it. */
  async update(userId: string, target: RoutineTarget, changes: RoutineChanges): Promise<RoutineResult<RoutineView>> {
    const found = await this.findOne(userId, target, 'change');
    if (!found.ok) return found;
    return this.prisma.$transaction(async (transaction) => {
      // Locked: a run starting now waits for this change, and this change for a run's claim.
      await transaction.$queryRaw`SELECT id FROM "Routine" WHERE id = ${found.value.id}::uuid FOR UPDATE`;
      const routine = await transaction.routine.findUnique({ where: { id: found.value.id } });
      if (!routine) return { ok: false as const, error: 'That routine was just deleted. Nothing was changed.' };
      const text = this.checkText(changes.instruction ?? routine.instruction, changes.condition === undefined ? routine.condition : changes.condition);
      if (!text.ok) return text;
      const status = changes.status ?? routine.status;
      const now = this.clock.now();
      const reschedule = changes.at !== undefined || changes.recurrence !== undefined || (status === 'active' && routine.status !== 'active');
      let schedule: { startLocal: string; rule: string; nextDueAt: Date | null } = { startLocal: routine.startLocal, rule: routine.rrule, nextDueAt: routine.nextDueAt };
      if (reschedule) {
        if (changes.recurrence || changes.at) {
          const at = changes.at ?? (routine.nextDueAt ? toLocalString(routine.nextDueAt, routine.timezone) : routine.startLocal);
          const planned = changes.recurrence
            ? this.plan(routine.timezone, at, changes.recurrence, changes.whenAmbiguous)
            : this.planRule(routine.timezone, at, routine.rrule, changes.whenAmbiguous);
          if (!planned.ok) return planned;
          schedule = planned.value;
        } else {
          // Resumed: the next run after now on the same schedule (runs missed while paused are not made up).
          schedule = { ...schedule, nextDueAt: nextOccurrence(routine.rrule, routine.startLocal, routine.timezone, now) ?? null };
        }
      }
      const saved = await transaction.routine.update({
        where: { id: routine.id },
        data: {
          name: changes.name !== undefined ? nameOf(changes.name, text.value.instruction) : routine.name,
          instruction: text.value.instruction,
          condition: text.value.condition,
          startLocal: schedule.startLocal,
          rrule: schedule.rule,
          nextDueAt: schedule.nextDueAt,
          status,
          updatedAt: now,
        },
      });
      // The old occurrence's job finds the due time changed and does nothing.
      if (reschedule && status === 'active' && schedule.nextDueAt) await this.scheduleRun(transaction, saved.id, schedule.nextDueAt);
      return { ok: true as const, value: toRoutineView(saved) };
    });
  }

  /**
   * Travel: the user's active routines on another zone's clock move to `timezone` at the same
   * local time (07:00 stays 07:00 where they are), after their YES. How many moved.
   */
  async moveTo(userId: string, timezone: string): Promise<number> {
    const ids = await this.prisma.routine.findMany({ where: { userId, status: 'active', timezone: { not: timezone } }, select: { id: true } });
    let moved = 0;
    for (const { id } of ids) {
      moved += await this.prisma.$transaction(async (transaction) => {
        // Locked as update() locks it: a run's claim and this move do not interleave.
        await transaction.$queryRaw`SELECT id FROM "Routine" WHERE id = ${id}::uuid FOR UPDATE`;
        const routine = await transaction.routine.findUnique({ where: { id } });
        if (!routine || routine.status !== 'active' || routine.timezone === timezone) return 0;
        const now = this.clock.now();
        const nextDueAt = nextOccurrence(routine.rrule, routine.startLocal, timezone, now) ?? null;
        await transaction.routine.update({ where: { id }, data: { timezone, nextDueAt, updatedAt: now } });
        // The job for the old instant finds the due time changed and does nothing.
        if (nextDueAt) await this.scheduleRun(transaction, id, nextDueAt);
        return 1;
      });
    }
    return moved;
  }

  /** The zone of one of the user's active routines on another clock than `timezone`, if any. */
  async otherZone(userId: string, timezone: string): Promise<string | undefined> {
    return (await this.prisma.routine.findFirst({ where: { userId, status: 'active', timezone: { not: timezone } }, select: { timezone: true } }))?.timezone;
  }

  /** Deletes a routine (its runs go with it; its waiting job finds nothing). */
  async remove(userId: string, target: RoutineTarget): Promise<RoutineResult<RoutineView>> {
    const found = await this.findOne(userId, target, 'delete');
    if (!found.ok) return found;
    const { count } = await this.prisma.routine.deleteMany({ where: { id: found.value.id, userId } });
    if (count === 0) return { ok: false, error: 'That routine was already deleted.' };
    return { ok: true, value: toRoutineView(found.value) };
  }

  /**
   * For start-up and the periodic sweep: enqueues again the job of every active routine whose
   * next run is overdue by more than `olderThanMs` and was never claimed (a claim moves the
   * routine on, so an overdue `nextDueAt` is a run whose job was lost). Harmless when the job is
   * merely slow: an occurrence is claimed once, however many jobs it has. Returns how many.
   */
  async recoverOverdue(olderThanMs = 60_000, limit = 500): Promise<number> {
    const before = new Date(this.clock.now().getTime() - olderThanMs);
    const overdue = await this.prisma.routine.findMany({
      where: { status: 'active', nextDueAt: { lte: before } },
      select: { id: true, nextDueAt: true },
      orderBy: { nextDueAt: 'asc' },
      take: limit,
    });
    if (overdue.length === 0) return 0;
    await this.prisma.$transaction(async (transaction) => {
      for (const routine of overdue) await this.scheduleRun(transaction, routine.id, routine.nextDueAt!);
    });
    return overdue.length;
  }

  /** Enqueues the delayed job that runs one occurrence, in the caller's transaction. */
  async scheduleRun(executor: Prisma.TransactionClient, routineId: string, dueAt: Date, heldUntil?: Date): Promise<void> {
    const job = routineJob(routineId, dueAt, heldUntil);
    const id = await this.queue.enqueue(ROUTINE_QUEUE, job.data, { startAfter: job.startAfter, priority: job.priority, transaction: prismaSqlExecutor(executor) });
    // pg-boss stores nothing when the queue does not exist yet: a routine without its job would never run.
    if (id === null) throw new Error(`the ${ROUTINE_QUEUE} queue does not exist yet; the routine was not saved`);
  }

  /** The instruction and condition, tidied, or why they cannot be kept. */
  private checkText(rawInstruction: string, rawCondition: string | null | undefined): RoutineResult<{ instruction: string; condition: string | null }> {
    const instruction = rawInstruction.trim();
    const max = this.limits.maxInstructionLength;
    if (instruction.length === 0) return { ok: false, error: 'The routine needs an instruction: what should Herald do each time it runs? Nothing was saved; ask the user.' };
    if (instruction.length > max) {
      return { ok: false, error: `The routine's instruction is ${instruction.length} characters; routines can be at most ${max.toLocaleString('en-US')}. Nothing was saved: ask the user for a shorter version.` };
    }
    const condition = rawCondition?.trim() || null;
    if (condition && condition.length > max) return { ok: false, error: `The routine's condition is ${condition.length} characters; at most ${max.toLocaleString('en-US')}. Nothing was saved.` };
    return { ok: true, value: { instruction, condition } };
  }

  /** The rule and first run of a new schedule, refused when it runs more than hourly. */
  private plan(timezone: string, at: string, recurrence: RoutineRecurrence, whenAmbiguous?: 'earlier' | 'later'): RoutineResult<{ startLocal: string; rule: string; nextDueAt: Date }> {
    const rule = routineRule(recurrence);
    if (!rule.ok) return rule;
    return this.planRule(timezone, at, rule.rule, whenAmbiguous);
  }

  private planRule(timezone: string, at: string, rule: string, whenAmbiguous?: 'earlier' | 'later'): RoutineResult<{ startLocal: string; rule: string; nextDueAt: Date }> {
    let startLocal = at.slice(0, 19);
    const check = localToInstant(startLocal, timezone, whenAmbiguous ?? 'earlier');
    if (!check.ok && check.problem.kind === 'invalid') return { ok: false, error: `${check.problem.message}. Nothing was saved.` };
    let first = firstOccurrence(rule, startLocal, timezone);
    if (!first) return { ok: false, error: 'That schedule never runs (an end date before the start, or a day that never exists). Nothing was saved; ask the user to rephrase.' };
    const now = this.clock.now();
    if (first.getTime() <= now.getTime()) {
      const upcoming = nextOccurrenceWithLocal(rule, startLocal, timezone, now);
      if (!upcoming) return { ok: false, error: 'Every run of that schedule is already in the past. Nothing was saved.' };
      [first, startLocal] = [upcoming.instant, upcoming.local];
    }
    const second = nextOccurrence(rule, startLocal, timezone, first);
    const third = second ? nextOccurrence(rule, startLocal, timezone, second) : undefined;
    if (tooFrequent([first, ...(second ? [second] : []), ...(third ? [third] : [])])) {
      return { ok: false, error: 'Routines run at most once an hour; that schedule runs more often. Nothing was saved: ask the user for hourly or less often.' };
    }
    return { ok: true, value: { startLocal, rule, nextDueAt: first } };
  }

  private async findOne(userId: string, target: RoutineTarget, verb: string): Promise<RoutineResult<Routine>> {
    if (target.routineId) {
      const routine = await this.prisma.routine.findFirst({ where: { id: target.routineId, userId } });
      return routine ? { ok: true, value: routine } : { ok: false, error: `No routine has id ${target.routineId}. Nothing was changed.` };
    }
    const all = await this.prisma.routine.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
    const candidates = target.match ? all.filter((routine) => matchesRoutine(routine, target.match!)) : [];
    if (candidates.length === 1) return { ok: true, value: candidates[0]! };
    const listing = (routines: Routine[]) => routines.slice(0, 10).map((routine, index) => `${index + 1}) "${routine.name}" (id ${routine.id})`).join('; ');
    if (candidates.length === 0) {
      return { ok: false, error: `No routine matches "${target.match ?? ''}", so nothing was changed. ${all.length > 0 ? `The user's routines: ${listing(all)}.` : 'The user has no routines.'}` };
    }
    return { ok: false, candidates: candidates.slice(0, 10).map(toRoutineView), error: `${candidates.length} routines match "${target.match}": ${listing(candidates)}. Nothing was changed; ask the user which one to ${verb}.` };
  }
}

/** A short name from the user's own words when they gave none. */
function nameOf(name: string | undefined, instruction: string): string {
  const given = name?.trim();
  if (given) return given.slice(0, 80);
  const words = instruction.split(/\s+/).slice(0, 6).join(' ');
  return words.length > 60 ? `${words.slice(0, 57)}…` : words;
}

function matchesRoutine(routine: Pick<Routine, 'name' | 'instruction'>, query: string): boolean {
  const cleaned = query.replace(/\broutines?\b/gi, ' ').trim();
  if (!cleaned) return false;
  return matches(routine.name, cleaned) || matches(routine.instruction, cleaned);
}

/** A routine as tools, pages and MY DATA show it. */
function toRoutineView(routine: Routine): RoutineView {
  return {
    id: routine.id,
    name: routine.name,
    instruction: routine.instruction,
    condition: routine.condition,
    status: routine.status,
    next: routine.status === 'active' && routine.nextDueAt ? formatLocal(routine.nextDueAt, routine.timezone) : null,
    nextLocal: routine.status === 'active' && routine.nextDueAt ? toLocalString(routine.nextDueAt, routine.timezone) : null,
    repeats: describeRule(routine.rrule, routine.startLocal),
  };
}
