/**
 * Errors by blame. Each says whose fault a failure is, so callers can decide what to do
 * without parsing messages: configuration is the operator's, model behaviour is the
 * model's, tool errors are a tool's (and go back to the model as error results), and
 * timeouts are nobody's in particular; a turn that used up its model budget is stopped
 * on purpose (budget). Anything else thrown is a bug.
 */
export type ErrorBlame = 'configuration' | 'model' | 'tool' | 'timeout' | 'budget' | 'internal';

/** Base class: every Herald error carries its blame. */
export abstract class HeraldError extends Error {
  abstract readonly blame: ErrorBlame;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Settings are missing or wrong; the operator must fix them. */
export class ConfigurationError extends HeraldError {
  readonly blame = 'configuration' as const;
}

/** Why a model call failed. */
export type ModelErrorReason = 'unavailable' | 'rate_limited' | 'overloaded' | 'model_not_found' | 'rejected' | 'behaviour';

/** The model could not be reached, refused, or answered something unusable. */
export class ModelError extends HeraldError {
  readonly blame = 'model' as const;

  constructor(
    message: string,
    readonly reason: ModelErrorReason,
    options?: { cause?: unknown; status?: number; retryAfterMs?: number | undefined },
  ) {
    super(message, options);
    this.status = options?.status;
    this.retryAfterMs = options?.retryAfterMs;
  }

  readonly status: number | undefined;
  /** How long the service asked us to wait (its retry-after), when it said. */
  readonly retryAfterMs: number | undefined;
}

/** A tool failed while running; the failure becomes an error result for the model. */
export class ToolError extends HeraldError {
  readonly blame = 'tool' as const;
}

/** Work took longer than its limit and was stopped. */
export class TimeoutError extends HeraldError {
  readonly blame = 'timeout' as const;
}

/** The blame of any thrown value: Herald errors say theirs, anything else is internal. */
export function blameOf(error: unknown): ErrorBlame {
  if (error instanceof HeraldError) return error.blame;
  if (error instanceof Error && error.name === 'AbortError') return 'timeout';
  return 'internal';
}

/** A short, log-safe description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
