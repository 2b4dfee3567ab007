/**
 * verifyClaims (docs/ARCHITECTURE.md "The orchestrator" 3): an agent never claims an action it did
 * not perform. A report that says less than was done is completed from the tool ledger.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../src/agents/tool-loop.js';
import { actualEffects, reconcileWithLedger, reportFromLedger, verifyClaims } from '../../src/orchestrator/verifier.js';

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

  it('fails a claim of the wrong kind (an update that did not happen)', () => {
    expect(verifyClaims({ summary: 's', updated: items(1) }, [call('created')])).toBe(
      'The report does not match what was done: claimed 1 updated but 0 tool call(s) actually updated something.',
    );
  });

  it('accepts a report that leaves out what was done: an incomplete report is not a false claim', () => {
    expect(verifyClaims({ summary: 's' }, [call('deleted')])).toBeUndefined();
    expect(verifyClaims({ summary: 's', created: items(1) }, [call('created'), call('created')])).toBeUndefined();
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

describe('reconcileWithLedger', () => {
  it('fills a report that claims fewer changes than were made from the ledger, keeping the agent\'s own words first', () => {
    const calls = [
      call('created', { name: 'create_scheduled_job', input: { text: 'Call mom', at: '2026-03-02T09:00' }, result: { effect: 'created', reminder: { id: 'r1' } } }),
      call('created', { name: 'create_scheduled_job', input: { text: 'Pay rent' }, result: { effect: 'created', reminder: { id: 'r2' } } }),
      call('deleted', { name: 'remove_fact', input: { factId: 'f1' }, result: { effect: 'deleted', fact: { id: 'f1', content: 'old' } } }),
    ];
    const { output, mismatch } = reconcileWithLedger({ summary: 'Made reminders', created: [{ description: 'Call mom (9am)' }] }, calls);
    expect(mismatch).toBeUndefined();
    expect(output.created).toEqual([{ description: 'Call mom (9am)' }, { id: 'r2', description: 'Pay rent' }]);
    expect(output.deleted).toEqual([{ id: 'f1', description: 'remove_fact' }]);
  });

  it('names the changes of a batch call after its input items', () => {
    const batch = call(undefined, { name: 'add_list_items', input: { list: 'shopping', items: ['milk', 'eggs', 'bread'] }, result: { effects: { created: 2, updated: 0, deleted: 0 } } });
    expect(reconcileWithLedger({ summary: 'Added' }, [batch]).output.created).toEqual([{ description: 'milk' }, { description: 'eggs' }]);
  });
});

describe('reportFromLedger', () => {
  it('makes the text the summary (and the reply when one is wanted) and the changes the ledger\'s', () => {
    const calls = [call('created', { input: { content: 'Is vegetarian' } }), call('created', { isError: true, input: { content: 'failed one' } })];
    expect(reportFromLedger('Saved that you are vegetarian.', calls, true)).toEqual({
      summary: 'Saved that you are vegetarian.',
      reply: 'Saved that you are vegetarian.',
      created: [{ description: 'Is vegetarian' }],
    });
    expect(reportFromLedger('', [], false)).toEqual({ summary: 'Finished without a written report.' });
  });
});
