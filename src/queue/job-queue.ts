import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';

/**
 * Something that runs SQL inside the caller's transaction, so a job is stored atomically
 * with the rows that need it (pg-boss's `db` option).
 */
export interface SqlExecutor {
  executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Options for one enqueued job. */
export interface EnqueueOptions {
  /** Run no earlier than this instant. */
  startAfter?: Date;
  /** Store the job inside this transaction. */
  transaction?: SqlExecutor;
  /** Identifies the job for de-duplication by the queue ("short" policy queues). */
  singletonKey?: string;
  /** Higher runs first among jobs that are due (pg-boss fetches by priority, then age). */
  priority?: number;
}

/** A named queue's settings. */
export interface QueueDefinition {
  name: string;
  /** How long a job may stay active before the queue assumes its worker died and retries it. */
  expireInSeconds: number;
  retryLimit: number;
  retryDelaySeconds: number;
  /** pg-boss's policy: 'short' keeps at most one waiting job per singleton key (default 'standard'). */
  policy?: 'standard' | 'short';
}

/** How a handler is run. */
export interface WorkOptions {
  /** Independent pollers on this instance: how many jobs run at once. */
  concurrency: number;
  /** Jobs fetched per poll and handed to the handler together. */
  batchSize?: number;
  pollingIntervalSeconds?: number;
}

/** A job as handlers see it. */
export interface QueuedJob<Data> {
  id: string;
  name: string;
  data: Data;
}

/** The session advisory lock instances take in turn to create pg-boss's schema and queues ("herald q"). */
const QUEUE_SETUP_LOCK = 0x6865_7271;

/**
 * Herald's durable job queue: pg-boss on the application database. Jobs survive
 * crashes (an active job whose worker died expires and is retried) and any number of
 * instances can work the same queues.
 */
export class JobQueue {
  private readonly boss: PgBoss;
  private readonly workerIds = new Map<string, string[]>();
  /** Workers inside their handler right now (waking them would do nothing until they finish). */
  private readonly busy = new Set<string>();
  /** Where each queue's round of wake-ups continues, so a burst of wakes reaches different workers. */
  private readonly nextToWake = new Map<string, number>();
  private started = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {
    this.boss = new PgBoss({
      db: { executeSql: (text: string, values: unknown[]) => pool.query(text, values) },
      // Archive completed jobs for a day; keep the tables small.
      deleteAfterDays: 1,
      maintenanceIntervalSeconds: 120,
    });
    this.boss.on('error', (error) => this.logger.error({ error }, 'job queue error'));
  }

  /**
   * Starts pg-boss (creating its schema on first use) and ensures the queues exist. Instances
   * starting together on a new or just-migrated database take turns (one session advisory
   * lock): pg-boss's schema creation and `createQueue` deadlock or collide when run at once
   * (issue 31: one of two instances started together died in 4 of 5 tries). A deadlock that
   * still happens is retried.
   */
  async start(queues: QueueDefinition[]): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.withSetupLock(async () => {
          await this.boss.start();
          await this.ensureQueues(queues);
        });
        this.started = true;
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 40P01 deadlock, 40001 serialization, 42P06/42710/23505 "already exists" from a racing creator.
        if (attempt >= 5 || !['40P01', '40001', '42P06', '42710', '23505'].includes(code ?? '')) throw error;
        this.logger.warn({ attempt, code }, 'the job queue could not start (another instance was creating it); trying again');
        await sleep(200 * attempt);
      }
    }
  }

  /** Runs `work` while holding the queue-setup lock, on a connection of its own (not the pool's: pg-boss needs the pool). */
  private async withSetupLock(work: () => Promise<void>): Promise<void> {
    const client = new pg.Client({ ...this.pool.options, connectionString: this.pool.options.connectionString });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [QUEUE_SETUP_LOCK]);
      await work();
    } finally {
      await client.end().catch(() => {});
    }
  }

  private async ensureQueues(queues: QueueDefinition[]): Promise<void> {
    for (const queue of queues) {
      const settings = {
        name: queue.name,
        policy: queue.policy ?? ('standard' as const),
        expireInSeconds: queue.expireInSeconds,
        retryLimit: queue.retryLimit,
        retryDelay: queue.retryDelaySeconds,
        retryBackoff: true,
      };
      const existing = await this.boss.getQueue(queue.name);
      if (existing) await this.boss.updateQueue(queue.name, settings);
      else {
        await this.boss.createQueue(queue.name, settings).catch(async (error: unknown) => {
          // Another instance created it a moment ago.
          if (!(await this.boss.getQueue(queue.name))) throw error;
        });
      }
    }
  }

  /** Adds a job; returns its id. */
  async enqueue(name: string, data: object, options: EnqueueOptions = {}): Promise<string | null> {
    const sendOptions: PgBoss.SendOptions = {};
    if (options.startAfter) sendOptions.startAfter = options.startAfter;
    if (options.singletonKey) sendOptions.singletonKey = options.singletonKey;
    if (options.priority !== undefined) sendOptions.priority = options.priority;
    if (options.transaction) (sendOptions as { db?: SqlExecutor }).db = options.transaction;
    return this.boss.send(name, data, sendOptions);
  }

  /** Adds many jobs at once (one INSERT). */
  async enqueueMany(name: string, jobs: Array<{ data: object; startAfter?: Date; id?: string; priority?: number }>, transaction?: SqlExecutor): Promise<void> {
    if (jobs.length === 0) return;
    const inserts = jobs.map((job) => ({
      name,
      data: job.data,
      ...(job.id ? { id: job.id } : {}),
      ...(job.startAfter ? { startAfter: job.startAfter } : {}),
      ...(job.priority !== undefined ? { priority: job.priority } : {}),
    }));
    if (transaction) await this.boss.insert(inserts, { db: transaction } as PgBoss.InsertOptions);
    else await this.boss.insert(inserts);
  }

  /**
   * Deletes one job, whatever its state. A handler may delete its own running job: pg-boss then
   * completes or fails nothing (a job that must not outlive what it named, such as an erased
   * user's, is gone at once instead of kept, completed, for a day).
   */
  async discard(name: string, id: string): Promise<void> {
    await this.boss.deleteJob(name, id);
  }

  /** Runs `handler` for each job, `concurrency` at a time on this instance. */
  async work<Data>(name: string, options: WorkOptions, handler: (job: QueuedJob<Data>) => Promise<void>): Promise<void> {
    const ids: string[] = [];
    const batchSize = options.batchSize ?? 1;
    for (let index = 0; index < options.concurrency; index += 1) {
      // Read by the handler, which can run before work() has answered with the id.
      // eslint-disable-next-line prefer-const -- assigned once, after the closure that reads it is made
      let workerId: string | undefined;
      const id = await this.boss.work<Data>(
        name,
        { batchSize, pollingIntervalSeconds: options.pollingIntervalSeconds ?? 1 },
        async (jobs) => {
          if (workerId) this.busy.add(workerId);
          // Each job settles on its own; one failing does not fail its batch-mates.
          const results = await Promise.allSettled(jobs.map((job) => handler({ id: job.id, name: job.name, data: job.data })));
          if (workerId) this.busy.delete(workerId);
          const failed = results.flatMap((result, position) => (result.status === 'rejected' ? [{ job: jobs[position]!, reason: result.reason as unknown }] : []));
          for (const { job, reason } of failed) {
            this.logger.warn({ queue: name, jobId: job.id, error: reason instanceof Error ? reason.message : String(reason) }, 'job failed; the queue will retry it');
            await this.boss.fail(name, job.id, { message: String(reason) }).catch(() => {});
          }
          // pg-boss completes the batch when the handler returns; failed ones were failed above.
          // A full batch means more may be waiting: fetch again at once instead of sleeping
          // out the polling interval (what keeps a minute with 10,000 reminders on time).
          if (jobs.length === batchSize && workerId) this.boss.notifyWorker(workerId);
        },
      );
      workerId = id;
      ids.push(id);
    }
    this.workerIds.set(name, [...(this.workerIds.get(name) ?? []), ...ids]);
  }

  /**
   * Wakes `count` of this instance's idle workers for `name` (one per job just enqueued) to
   * fetch now instead of at their next poll. Only as many as there are jobs: with many
   * workers, waking all of them for each message would send every one of them to the
   * database for a single job.
   */
  wake(name: string, count = 1): void {
    const ids = this.workerIds.get(name) ?? [];
    let woken = 0;
    let position = this.nextToWake.get(name) ?? 0;
    for (let looked = 0; looked < ids.length && woken < count; looked += 1) {
      const id = ids[position % ids.length]!;
      position += 1;
      if (this.busy.has(id)) continue;
      this.boss.notifyWorker(id);
      woken += 1;
    }
    this.nextToWake.set(name, position % Math.max(1, ids.length));
  }

  /** True once `start()` has run in this process (the queue's tables and queues exist). */
  get isStarted(): boolean {
    return this.started;
  }

  /** True when the queue's database answers. */
  async isHealthy(): Promise<boolean> {
    if (!this.started) return false;
    try {
      await this.boss.getQueueSize('turn');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Stops fetching new jobs and waits up to `timeoutMs` for active ones; what is still
   * running afterwards is released by pg-boss for another instance to retry.
   */
  async stop(timeoutMs: number): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful: true, timeout: timeoutMs, close: false, wait: true });
    // pg-boss marks a finished batch complete without awaiting it, after its workers have
    // already reported stopped. Let those last statements finish before anyone closes the
    // pool, or they reject on a closed pool and take the process down mid-shutdown.
    const deadline = Date.now() + 5_000;
    while (this.pool.totalCount > this.pool.idleCount && Date.now() < deadline) {
      await sleep(20);
    }
  }
}
