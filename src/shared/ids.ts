import { randomUUID } from 'node:crypto';

/** Makes ids. Injected so tests can predict them. */
export interface IdGenerator {
  /** A new unique id, optionally with a readable prefix ("plan", "step"). */
  next(prefix?: string): string;
}

/** Random UUIDs. */
export const randomIds: IdGenerator = {
  next: (prefix) => (prefix ? `${prefix}_${randomUUID()}` : randomUUID()),
};

/** Sequential ids for tests: plan_1, plan_2, step_1… */
export class SequentialIds implements IdGenerator {
  private readonly counters = new Map<string, number>();

  next(prefix = 'id'): string {
    const value = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, value);
    return `${prefix}_${value}`;
  }
}
