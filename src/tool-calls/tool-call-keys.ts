import type { PrismaClient } from '../db/prisma-types.js';

/** A call claimed before it runs: its key and, for the record, who made it. */
export interface ClaimedCall {
  key: string;
  userId: string;
  /** The request across runs (the first inbound message the turn answers). */
  scope: string;
  turnId: string;
  stepId: string;
  tool: string;
  at: Date;
}

/** What claiming a key found. */
export type Claim =
  /** Nobody made this call yet: it is ours to make. */
  | { kind: 'claimed' }
  /** It was made and reported back: its kept output. */
  | { kind: 'done'; result: unknown }
  /** It was started and never reported back (cut off, or the process died): it may have taken effect. */
  | { kind: 'started' };

/** Where keyed calls are kept: ToolCallKey rows (Prisma), or memory (tests, benchmarks). */
export interface ToolCallKeyStore {
  /** Claims `call.key` for a call about to run, atomically; or says what an earlier claim of it left. */
  claim(call: ClaimedCall): Promise<Claim>;
  /** The call succeeded: whoever makes it again gets `result`. */
  done(key: string, result: unknown, at: Date): Promise<void>;
  /** The call changed nothing (it failed, or was refused): it may be made again. */
  release(key: string): Promise<void>;
  /** Forgets the user's keys older than `before` (a request is not run again after that). */
  forget(userId: string, before: Date): Promise<void>;
}

/** ToolCallKey rows: a claim is one insert that does nothing when the key exists. */
export class PrismaToolCallKeys implements ToolCallKeyStore {
  constructor(private readonly prisma: PrismaClient) {}

  async claim(call: ClaimedCall): Promise<Claim> {
    const { count } = await this.prisma.toolCallKey.createMany({
      data: { key: call.key, userId: call.userId, scope: call.scope, turnId: call.turnId, stepId: call.stepId, tool: call.tool, createdAt: call.at },
      skipDuplicates: true,
    });
    if (count === 1) return { kind: 'claimed' };
    const existing = await this.prisma.toolCallKey.findUnique({ where: { key: call.key }, select: { finishedAt: true, result: true } });
    // Released between the insert and the read (a failed call): it is free again.
    if (!existing) return this.claim(call);
    return existing.finishedAt ? { kind: 'done', result: (existing.result as { output?: unknown } | null)?.output } : { kind: 'started' };
  }

  async done(key: string, result: unknown, at: Date): Promise<void> {
    // Wrapped, so that any output (a string, nothing at all) is a JSON object.
    await this.prisma.toolCallKey.updateMany({ where: { key }, data: { result: { output: result ?? null }, finishedAt: at } });
  }

  async release(key: string): Promise<void> {
    await this.prisma.toolCallKey.deleteMany({ where: { key, finishedAt: null } });
  }

  async forget(userId: string, before: Date): Promise<void> {
    await this.prisma.toolCallKey.deleteMany({ where: { userId, createdAt: { lt: before } } });
  }
}

/** Keyed calls in memory, for unit tests and benchmarks (one process, no restart to survive). */
export class InMemoryToolCallKeys implements ToolCallKeyStore {
  readonly rows = new Map<string, ClaimedCall & { result?: unknown; finishedAt?: Date }>();

  async claim(call: ClaimedCall): Promise<Claim> {
    const existing = this.rows.get(call.key);
    if (!existing) {
      this.rows.set(call.key, { ...call });
      return { kind: 'claimed' };
    }
    return existing.finishedAt ? { kind: 'done', result: existing.result } : { kind: 'started' };
  }

  async done(key: string, result: unknown, at: Date): Promise<void> {
    const row = this.rows.get(key);
    if (row) this.rows.set(key, { ...row, result, finishedAt: at });
  }

  async release(key: string): Promise<void> {
    if (!this.rows.get(key)?.finishedAt) this.rows.delete(key);
  }

  async forget(userId: string, before: Date): Promise<void> {
    for (const [key, row] of this.rows) if (row.userId === userId && row.at < before) this.rows.delete(key);
  }
}
