import fc from 'fast-check';

/**
 * A long string kept as its unit and length until it is sent, so a counterexample that holds
 * one prints as `long("x", 120000)` instead of the whole text.
 */
export class LongText {
  constructor(
    readonly unit: string,
    readonly length: number,
  ) {}

  /** The text itself: `unit` repeated, cut to `length` UTF-16 units (a pair split at the end stays as the fuzz made it). */
  text(): string {
    return this.unit.repeat(Math.ceil(this.length / Math.max(1, this.unit.length))).slice(0, this.length);
  }

  [fc.toStringMethod](): string {
    return `long(${JSON.stringify(this.unit)}, ${this.length})`;
  }
}

/** A long text of `unit`, between `min` and `max` long. */
export function longText(units: string[], min: number, max: number): fc.Arbitrary<LongText> {
  return fc.tuple(fc.constantFrom(...units), fc.integer({ min, max })).map(([unit, length]) => new LongText(unit, length));
}
