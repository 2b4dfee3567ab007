/** verifyClaims (DESIGN.md "The orchestrator" 3): an agent never claims an action it did not perform. */
import { describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../src/agents/tool-loop.js';
import { actualEffects, verifyClaims } from '../../src/orchestrator/verifier.js';

const call = (effect: unknown, overrides: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  name: 'save',
  input: {},
  isError: false,
  mutates: true,
  result: effect === undefined ? { ok: true } : { effect },
  ...overrides,
});
const items = (count: number) => Array.from({ length: count }, (_, index) => ({ description: `item ${index}` }));

describe('actualEffects', () => {
  it('counts successful mutating calls by effect; errors and reads do not count; unchanged counts as nothing', () => {
    expect(
      actualEffects([
        call('created'),
        call('created', { isError: true }),
        call('updated'),
        call('deleted'),
        call('unchanged'),
        call(undefined),
        call('created', { mutates: false }),
      ]),
    ).toEqual({ created: 1, updated: 1, deleted: 1, unknown: 1 });
  });

  it('treats a string result as an effect-less mutation', () => {
    expect(actualEffects([call(undefined, { result: 'ok' })])).toEqual({ created: 0, updated: 0, deleted: 0, unknown: 1 });
  });
});

describe('verifyClaims', () => {
  it('passes claims that match the effects kind by kind', () => {
    expect(verifyClaims({ summary: 's', created: items(2), deleted: items(1) }, [call('created'), call('created'), call('deleted')])).toBeUndefined();
    expect(verifyClaims({ summary: 'nothing done' }, [])).toBeUndefined();
  });

  it('fails a claim of 2 created when 1 of 2 calls failed', () => {
    expect(verifyClaims({ summary: 's', created: items(2) }, [call('created'), call('created', { isError: true })])).toBe(
      'The report does not match what was done: claimed 2 created but 1 tool call(s) actually created something.',
    );
  });

  it('fails an unchanged effect claimed as created', () => {
    expect(verifyClaims({ summary: 's', created: items(1) }, [call('unchanged')])).toMatch(/claimed 1 created but 0/);
  });

  it('fails claims of the wrong kind, and a report that leaves out what was done', () => {
    expect(verifyClaims({ summary: 's', updated: items(1) }, [call('created')])).toMatch(/claimed 0 created but 1 .*; claimed 1 updated but 0/);
    expect(verifyClaims({ summary: 's' }, [call('deleted')])).toMatch(/claimed 0 deleted but 1/);
  });

  it('lets a mutating call that reports no effect account for one claimed item', () => {
    expect(verifyClaims({ summary: 's', created: items(1) }, [call(undefined)])).toBeUndefined();
    expect(verifyClaims({ summary: 's', created: items(2) }, [call(undefined)])).toMatch(/claimed 2 created/);
    expect(verifyClaims({ summary: 's', created: items(1), updated: items(1) }, [call(undefined)])).toMatch(/claimed 1 updated/);
  });

  it('ignores claims when no mutation was claimed or made', () => {
    expect(verifyClaims({ summary: 'looked it up', isEmpty: true }, [call('created', { mutates: false })])).toBeUndefined();
  });
});
