import type { Prisma } from '../generated/prisma/client.js';
import type { Logger } from '../logging/logger.js';
import type { RoutineService } from './routine-service.js';

/**
 * The oldest a run held for the WhatsApp window may be and still go out at the user's next
 * message: a day. A morning brief a day late is worse than none, and the routine's next
 * occurrence (at most daily for most routines) has its own run by then.
 */
const HELD_RUN_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Why a held run was dropped rather than run late. */
type HeldRunDropReason = 'superseded' | 'expired' | 'paused';

/** What one user's message did to their held runs. */
export interface HeldRunsReleased {
  /** Pending again, each with a job that runs it once the user's turn lets go of the lease. */
  released: Array<{ routineId: string; dueAt: Date }>;
  /** Ended `undeliverable`: never sent. */
  dropped: Array<{ routineId: string; dueAt: Date; reason: HeldRunDropReason }>;
}

/**
 * Holds a pending run for WhatsApp's window (`awaiting_window`, `heldForWindowAt`), inside the
 * caller's transaction (`src/turns/routine-run.ts`, fenced by the user's lease), and drops the
 * routine's older held runs (`undeliverable`): only the latest would run, and a user who never
 * writes again leaves one held row per routine, not one per occurrence. Whether it was held (no
 * longer pending: another job finished it), and the due times of the runs it dropped.
 */
export async function holdForWindow(
  transaction: Prisma.TransactionClient,
  run: { id: string; routineId: string; dueAt: Date },
  now: Date,
): Promise<{ held: boolean; superseded: Date[] }> {
  const held = await transaction.routineRun.updateMany({ where: { id: run.id, status: 'pending' }, data: { status: 'awaiting_window', heldForWindowAt: now } });
  if (held.count === 0) return { held: false, superseded: [] };
  const older = await transaction.routineRun.findMany({ where: { routineId: run.routineId, status: 'awaiting_window', dueAt: { lt: run.dueAt } }, select: { id: true, dueAt: true } });
  if (older.length > 0) await transaction.routineRun.updateMany({ where: { id: { in: older.map((row) => row.id) } }, data: { status: 'undeliverable', finishedAt: now } });
  return { held: true, superseded: older.map((row) => row.dueAt) };
}

/**
 * Routine runs held for WhatsApp's 24-hour window (`awaiting_window`, no template configured:
 * `src/turns/routine-run.ts` holds them without a model call) are released by the user's next
 * message: inside the transaction that commits their turn (`src/turns/turn-commit.ts`, where
 * missed reminders are told too), the latest held run of each routine becomes `pending` again
 * and gets a job. The job needs the user's lease, which their turn holds until its reply is
 * sent, so the routine's message comes after the reply. The held rows are locked as they are
 * read (FOR UPDATE), so two commits at once (two instances) release each run once.
 *
 * Dropped (`undeliverable`) instead of run late: older held runs of the same routine (only the
 * latest runs), a run a newer occurrence of its routine already replaced (a newer run exists,
 * or the next one is due), one older than `HELD_RUN_MAX_AGE_MS`, and one whose routine is
 * paused. A deleted routine's runs are deleted with it.
 */
export class HeldRoutineRuns {
  constructor(
    private readonly deps: {
      routines: Pick<RoutineService, 'scheduleRun'>;
      logger: Logger;
      /** Told of each dropped run (metrics: `herald_routine_runs_total{status="undeliverable"}`). */
      onDropped?: (run: { routineId: string; dueAt: Date }) => void;
    },
  ) {}

  /** Releases the user's held runs (see the class), inside the caller's transaction. */
  async release(transaction: Prisma.TransactionClient, userId: string, now: Date): Promise<HeldRunsReleased> {
    // Read committed: a commit that waited for these locks re-checks the status on the rows as
    // the other left them, and finds none still held.
    const held = await transaction.$queryRaw<Array<{ id: string; routineId: string; dueAt: Date }>>`
      SELECT "id", "routineId", "dueAt" FROM "RoutineRun"
      WHERE "userId" = ${userId}::uuid AND "status" = 'awaiting_window'
      ORDER BY "dueAt" DESC
      FOR UPDATE`;
    const result: HeldRunsReleased = { released: [], dropped: [] };
    if (held.length === 0) return result;
    const routineIds = [...new Set(held.map((run) => run.routineId))];
    const routines = new Map(
      (await transaction.routine.findMany({ where: { id: { in: routineIds } }, select: { id: true, status: true, nextDueAt: true } })).map((routine) => [routine.id, routine]),
    );
    const newest = new Map(
      (await transaction.routineRun.groupBy({ by: ['routineId'], where: { routineId: { in: routineIds }, status: { not: 'awaiting_window' } }, _max: { dueAt: true } })).map((row) => [row.routineId, row._max.dueAt]),
    );
    const seen = new Set<string>();
    const dropped: Array<{ id: string; routineId: string; dueAt: Date; reason: HeldRunDropReason }> = [];
    for (const run of held) {
      const routine = routines.get(run.routineId);
      const reason = ((): HeldRunDropReason | undefined => {
        if (seen.has(run.routineId)) return 'superseded';
        if (!routine || routine.status !== 'active') return 'paused';
        const later = newest.get(run.routineId);
        if ((later && later.getTime() > run.dueAt.getTime()) || (routine.nextDueAt && routine.nextDueAt.getTime() <= now.getTime())) return 'superseded';
        if (now.getTime() - run.dueAt.getTime() > HELD_RUN_MAX_AGE_MS) return 'expired';
        return undefined;
      })();
      seen.add(run.routineId);
      if (reason) {
        dropped.push({ ...run, reason });
        continue;
      }
      await transaction.routineRun.update({ where: { id: run.id }, data: { status: 'pending' } });
      // Held until now: its lateness (ROUTINE_MAX_LATENESS_MS) counts from the user's message.
      await this.deps.routines.scheduleRun(transaction, run.routineId, run.dueAt, now);
      result.released.push({ routineId: run.routineId, dueAt: run.dueAt });
    }
    if (dropped.length > 0) {
      await transaction.routineRun.updateMany({ where: { id: { in: dropped.map((run) => run.id) }, status: 'awaiting_window' }, data: { status: 'undeliverable', finishedAt: now } });
      result.dropped = dropped.map(({ routineId, dueAt, reason }) => ({ routineId, dueAt, reason }));
    }
    return result;
  }

  /** Logs and counts what `release` did, once its transaction has committed. */
  report(userId: string, result: HeldRunsReleased): void {
    for (const run of result.released) {
      this.deps.logger.info({ event: 'routine_released', userId, routineId: run.routineId, dueAt: run.dueAt.toISOString() }, 'routine run held for the WhatsApp window: released by the user\'s message');
    }
    for (const run of result.dropped) {
      this.deps.logger.info({ event: 'routine_run_finished', userId, routineId: run.routineId, dueAt: run.dueAt.toISOString(), status: 'undeliverable', reason: run.reason }, 'routine run held for the WhatsApp window: dropped, not sent late');
      this.deps.onDropped?.({ routineId: run.routineId, dueAt: run.dueAt });
    }
  }
}
