import { createHash } from 'node:crypto';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { describeError } from '../shared/errors.js';
import { stableJson } from '../shared/stable-json.js';
import type { KeyedCall, KeyedOutcome, KeyedToolCalls } from '../tools/keyed-calls.js';
import type { ToolResult } from '../tools/tool.js';
import type { ToolCallKeyStore } from './tool-call-keys.js';

/** The request a turn answers, as its keyed calls name it. */
export interface CallScope {
  userId: string;
  /** The same whenever this request runs again: the first inbound message the turn answers. */
  scope: string;
  /** This run's turn (a re-run after a crash is another turn): recorded, not keyed. */
  turnId: string;
}

/** How long a request's keys are kept: a turn runs again within minutes (a lapsed lease), never a day later. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * The key of one mutating call: the request, the tool, its arguments (canonical JSON) and
 * which identical call of its step attempt it is. Deliberately not the step's id or the
 * turn's: a replanned step gets a new id (`step_2_v2`) and a turn taken over after a crash
 * is a new turn with a fresh plan, and those are exactly the re-runs that must find the call
 * done. Two steps of one request making the very same call is one action, made once.
 */
export function callKey(scope: string, tool: string, input: unknown, occurrence: number): string {
  return createHash('sha256').update(JSON.stringify([scope, tool, stableJson(input), occurrence])).digest('hex');
}

/**
 * One turn's keyed calls (see {@link KeyedToolCalls}). A call is claimed before it runs, and
 * the claim is durable before the call starts, so a run that dies after the effect always
 * leaves a trace. A key already done replays its kept output instead of running; a key
 * started and never finished (the run making it was cut off or died) is not run blindly: the
 * agent is told to check first. What a call did is recorded behind the agent's next step
 * (off the critical path): a run dying before that leaves the key started, which the re-run
 * checks rather than repeats. The same call from two steps at once is made once: the later
 * waits until the earlier's outcome is recorded. Keys are kept a day per user.
 */
export class ToolCallLedger {
  /** Per key, until the call using it has run and its outcome is recorded (or it was cut off). */
  private readonly settling = new Map<string, Promise<void>>();
  /** Writes still on their way (outcomes, forgetting old keys): `flush()` waits for them. */
  private readonly writes = new Set<Promise<void>>();
  private forgotten = false;

  constructor(
    private readonly store: ToolCallKeyStore,
    private readonly scope: CallScope,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The keyed calls of one step (its id is recorded with each, for debugging). */
  forStep(stepId: string): KeyedToolCalls {
    return { run: (call, execute) => this.run(stepId, call, execute) };
  }

  /** Waits until every outcome is recorded (the turn's end). */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  private async run(stepId: string, call: KeyedCall, execute: () => Promise<ToolResult>): Promise<KeyedOutcome> {
    const key = callKey(this.scope.scope, call.tool, call.input, call.occurrence);
    // The same call from a step running alongside: once its outcome is recorded, read what it left.
    for (let earlier = this.settling.get(key); earlier; earlier = this.settling.get(key)) await earlier;
    let resolve!: () => void;
    const settling = new Promise<void>((done) => (resolve = done));
    this.settling.set(key, settling);
    const settled = () => {
      if (this.settling.get(key) === settling) this.settling.delete(key);
      resolve();
    };
    // A call cut off holds nobody up: whoever makes it next finds it started.
    call.signal?.addEventListener('abort', settled, { once: true });

    const now = this.clock.now();
    if (!this.forgotten) {
      this.forgotten = true;
      this.behind(() => this.store.forget(this.scope.userId, new Date(now.getTime() - KEEP_MS)), 'could not forget old tool call keys');
    }
    const fields = { tool: call.tool, stepId, occurrence: call.occurrence };
    let claim: Awaited<ReturnType<ToolCallKeyStore['claim']>>;
    try {
      claim = await this.store.claim({ key, ...this.scope, stepId, tool: call.tool, at: now });
    } catch (error) {
      settled();
      throw error;
    }
    if (claim.kind === 'done') {
      settled();
      this.logger.info({ event: 'tool_call_replayed', ...fields }, 'this request already made this call: its result is replayed, the call is not made again');
      return { kind: 'replayed', output: claim.result };
    }
    if (claim.kind === 'started') {
      settled();
      this.logger.info({ event: 'tool_call_uncertain', ...fields }, 'an earlier run of this call was cut off: not made again unchecked');
      return { kind: 'uncertain' };
    }
    let result: ToolResult;
    try {
      result = await execute();
    } catch (error) {
      // Cut off by the step's timeout: it may still take effect, so the key stays "started".
      if (call.signal?.aborted) settled();
      else this.behind(() => this.store.release(key), 'could not release a tool call key', settled);
      throw error;
    }
    const outcome = result;
    if (outcome.isError) this.behind(() => this.store.release(key), 'could not release a tool call key', settled);
    else this.behind(() => this.store.done(key, call.keep(outcome.output), this.clock.now()), 'could not record a tool call as done', settled);
    return { kind: 'ran', result };
  }

  /** A write off the critical path: logged if it fails, waited for by `flush()`, then `after`. */
  private behind(write: () => Promise<void>, failure: string, after?: () => void): void {
    const pending: Promise<void> = write()
      .catch((error: unknown) => this.logger.warn({ error: describeError(error) }, failure))
      .finally(() => {
        this.writes.delete(pending);
        after?.();
      });
    this.writes.add(pending);
  }
}
