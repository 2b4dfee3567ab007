/** The source of "now". Injected everywhere time matters, so tests control it. */
export interface Clock {
  now(): Date;
}

/** The real wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string | number = '2026-01-28T18:30:00Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(to: Date | string | number): void {
    this.current = new Date(to).getTime();
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}
