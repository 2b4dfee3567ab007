import type { Logger } from '../logging/logger.js';
import { describeError } from '../shared/errors.js';
import type { HeraldMetrics } from './metrics.js';

/** Where a survived error is counted, once Herald's metrics exist. */
export interface GuardedProcess {
  metrics?: Pick<HeraldMetrics, 'unhandledError'> | undefined;
}

/**
 * Keeps a dependency's failure from ending the process. pg-boss marks a finished job complete
 * without awaiting it; when the database has just gone away that promise rejects with nobody to
 * catch it, and Node's default for an unhandled rejection is to exit, taking every user's turn in
 * flight with it (issue 31 measured both instances dead within half a second of Postgres
 * stopping). Here such an error is logged with what it was and counted
 * (`herald_unhandled_errors_total`), and Herald goes on: the database is retried, the job is
 * retried by the queue, the turn by its lease.
 *
 * An exception thrown from a library's callback is treated the same way: Herald's own code
 * never throws there (its bugs are caught per turn and per request), so what arrives here is a
 * library's, and the process state it left is that library's connection, which it replaces.
 *
 * @returns A function that removes the handlers (for tests).
 */
export function guardProcess(logger: Logger, target: GuardedProcess): () => void {
  const onRejection = (reason: unknown) => {
    target.metrics?.unhandledError('rejection');
    logger.error({ event: 'unhandled_rejection', error: describeError(reason), stack: reason instanceof Error ? reason.stack?.split('\n').slice(0, 6).join('\n') : undefined }, 'a promise nobody awaited failed; Herald keeps running');
  };
  const onException = (error: Error) => {
    target.metrics?.unhandledError('exception');
    logger.error({ event: 'uncaught_exception', error: describeError(error), stack: error.stack?.split('\n').slice(0, 6).join('\n') }, 'an exception no code caught; Herald keeps running');
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
