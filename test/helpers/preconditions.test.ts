import { afterEach, describe, expect, it } from 'vitest';
import { requireInCi } from './preconditions.js';

describe('a missing precondition', () => {
  const saved = process.env.CI;
  afterEach(() => {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  });

  it('fails the run under CI=true, naming what is missing', () => {
    process.env.CI = 'true';
    expect(() => requireInCi(false, 'no external interface')).toThrow('precondition missing: no external interface. Under CI=true a missing precondition fails instead of skipping.');
    expect(requireInCi(true, 'no external interface')).toBe(true);
  });

  it('is left out elsewhere', () => {
    delete process.env.CI;
    expect(requireInCi(false, 'no external interface')).toBe(false);
    expect(requireInCi(true, 'no external interface')).toBe(true);
  });
});
