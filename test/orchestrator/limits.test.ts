/**
 * The orchestrator's limits (docs/ARCHITECTURE.md "Defaults"; seed 000 C-1 … C-5), each
 * with small values and exact model-call counts.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedModel, type ScriptedTurn } from '../../src/model/scripted-model.js';
import { fallbackReply } from '../../src/texts/fallback-replies.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { TimeoutError } from '../../src/shared/errors.js';
import {
  callsFor,
  callTool,
  complete,
  createPlan,
  lastMessageText,
  makeContext,
  makeDeps,
  outage,
  purposes,
  requestText,
  say,
  step,
  storeTrail,
  toolResultsOf,
} from './support/index.js';

describe('C-1: plan timeout', () => {
  it('stops a planning call that outlives the plan and apologises, blaming the timeout', async () => {
    const model = new ScriptedModel([{ delayMs: 30_000, then: say('too late') }]);
    const deps = makeDeps({ model, limits: { planTimeoutMs: 50 } });

    const result = await orchestrate(makeContext({ text: 'hi' }), deps);

    expect(result).toMatchObject({ status: 'failed', path: 'fallback', failure: { blame: 'timeout' }, reply: fallbackReply('timeout', 'en'), modelCalls: 1 });
    expect(model.calls[0]!.signal?.aborted).toBe(true);
    expect(storeTrail(deps.store)).toEqual(['plan_started', 'plan_finished timed_out']);
  });

  it('keeps finished steps’ results when the plan times out during a replanning call', async () => {
    const model = new ScriptedModel([
      createPlan([step('A', 'notes-agent', 'Add a note "alpha"'), step('B', 'lookup-agent', 'Look up beta')]),
      complete({ summary: 'ALPHA-RESULT saved' }),
      outage(),
      { delayMs: 30_000, then: say('too late') },
      say('Alpha is noted; I ran out of time for beta.'),
    ]);
    const deps = makeDeps({ model, limits: { planTimeoutMs: 200, stepMaxRetries: 0 } });

    const result = await orchestrate(makeContext({ text: 'note alpha and look up beta' }), deps);

    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'lookup-agent', 'replanner', 'composer']);
    expect(callsFor(model, 'replanner')[0]!.signal?.aborted).toBe(true);
    expect(result).toMatchObject({ status: 'failed', path: 'plan', failure: { blame: 'timeout' }, reply: 'Alpha is noted; I ran out of time for beta.', modelCalls: 5 });
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toContain('Result: ALPHA-RESULT saved');
    expect(storeTrail(deps.store).at(-1)).toBe('plan_finished timed_out');
  });

  it('keeps finished steps’ results when a replanning call fails outright', async () => {
    const model = new ScriptedModel([
      createPlan([step('A', 'notes-agent', 'Add a note "alpha"'), step('B', 'lookup-agent', 'Look up beta')]),
      complete({ summary: 'ALPHA-RESULT saved' }),
      outage(),
      outage('replanner down'),
      say('Alpha is noted; beta did not work.'),
    ]);
    const deps = makeDeps({ model, limits: { stepMaxRetries: 0 } });

    const result = await orchestrate(makeContext({ text: 'note alpha and look up beta' }), deps);

    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'lookup-agent', 'replanner', 'composer']);
    expect(result).toMatchObject({ status: 'failed', path: 'plan', failure: { blame: 'partial' }, reply: 'Alpha is noted; beta did not work.', modelCalls: 5 });
    expect(storeTrail(deps.store).at(-1)).toBe('plan_finished failed');
  });
});

describe('shutdown', () => {
  it('aborts the step in flight when the caller’s signal fires, without retrying it', async () => {
    const shutdown = new AbortController();
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the weather'), step('s2', 'notes-agent', 'Note it', ['s1'])]),
      () => {
        shutdown.abort(new Error('shutting down'));
        return { delayMs: 30_000, then: complete({ summary: 'never' }) };
      },
      say('unused by the caller'),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'weather?' }), deps, { signal: shutdown.signal });

    expect(callsFor(model, 'lookup-agent')).toHaveLength(1);
    expect(callsFor(model, 'lookup-agent')[0]!.signal?.aborted).toBe(true);
    expect(callsFor(model, 'notes-agent')).toHaveLength(0);
    expect(result.status).toBe('failed');
    expect(storeTrail(deps.store).slice(-2)).toEqual(['step_skipped s2', 'plan_finished timed_out']);
  });
});

describe('C-2: at most maxReplans replans', () => {
  it.each([0, 1, 2, 3])('with maxReplans %i, a step that keeps failing is replanned exactly that often, then the plan stops', async (maxReplans) => {
    const turns = [createPlan([step('s1', 'lookup-agent', 'Look up the weather')]), outage()];
    for (let replan = 0; replan < maxReplans; replan += 1) turns.push(createPlan([step('again', 'lookup-agent', `Look up the weather another way (${replan + 1})`)]), outage());
    turns.push(say('Sorry, I could not look that up.'));
    const model = new ScriptedModel(turns);
    const deps = makeDeps({ model, limits: { maxReplans, stepMaxRetries: 0 } });

    const result = await orchestrate(makeContext({ text: 'look up the weather' }), deps);

    expect(callsFor(model, 'replanner')).toHaveLength(maxReplans);
    expect(result.modelCalls).toBe(1 + (maxReplans + 1) + maxReplans + 1);
    expect(model.remaining).toBe(0);
    expect(result).toMatchObject({ status: 'failed', reply: 'Sorry, I could not look that up.' });
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toContain(`Stopped: the replan limit (${maxReplans}) was reached.`);
    const started = storeTrail(deps.store).filter((entry) => entry.startsWith('step_started'));
    expect(started).toEqual(['step_started s1#0', ...Array.from({ length: maxReplans }, (_, index) => `step_started again_v${index + 2}#0`)]);
    expect(storeTrail(deps.store).at(-1)).toBe('plan_finished failed');
  });
});

describe('C-3: at most maxPlanSteps steps across all plan versions', () => {
  it('rejects a first plan with too many steps and takes the corrected one', async () => {
    const four = [1, 2, 3, 4].map((n) => step(`s${n}`, 'notes-agent', `Add a note "n${n}"`));
    const model = new ScriptedModel([
      createPlan(four),
      createPlan(four.slice(0, 3)),
      complete({ summary: 'n1 done' }),
      complete({ summary: 'n2 done' }),
      complete({ summary: 'n3 done' }),
      say('Three notes done.'),
    ]);
    const deps = makeDeps({ model, limits: { maxPlanSteps: 3 } });

    const result = await orchestrate(makeContext({ text: 'note n1, n2, n3 and n4' }), deps);

    expect(purposes(model)).toEqual(['planner', 'planner', 'notes-agent', 'notes-agent', 'notes-agent', 'composer']);
    expect(result).toMatchObject({ status: 'succeeded', reply: 'Three notes done.', modelCalls: 6 });
    expect(requestText(model.calls[0]!)).toContain('At most 3 steps.');
    const [rejection] = toolResultsOf(model.calls[1]!);
    expect(rejection).toMatchObject({ isError: true });
    expect(rejection!.content).toContain('at most 3 step(s) are allowed; this plan has 4');
  });

  it('lets a replan add only the remaining step budget', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Add a note "alpha"'), step('s2', 'lookup-agent', 'Look up beta')]),
      complete({ summary: 'alpha done' }),
      outage(),
      createPlan([step('r1', 'lookup-agent', 'Look up beta in the archive'), step('r2', 'notes-agent', 'Note what was found')]),
      createPlan([step('r1', 'lookup-agent', 'Look up beta in the archive')]),
      complete({ summary: 'beta found in the archive' }),
      say('Alpha noted, and beta was in the archive.'),
    ]);
    const deps = makeDeps({ model, limits: { maxPlanSteps: 3, stepMaxRetries: 0 } });

    const result = await orchestrate(makeContext({ text: 'note alpha and look up beta' }), deps);

    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'lookup-agent', 'replanner', 'replanner', 'lookup-agent', 'composer']);
    expect(result.modelCalls).toBe(7);
    const [first, second] = callsFor(model, 'replanner');
    expect(lastMessageText(first!)).toContain('(at most 1)');
    expect(toolResultsOf(second!).at(-1)!.content).toContain('at most 1 step(s) are allowed; this plan has 2');
    expect(storeTrail(deps.store).filter((entry) => entry.startsWith('step_started'))).toEqual(['step_started s1#0', 'step_started s2#0', 'step_started r1_v2#0']);
  });

  it('does not replan at all once the budget is spent', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Add a note "alpha"'), step('s2', 'lookup-agent', 'Look up beta')]),
      complete({ summary: 'alpha done' }),
      outage(),
      say('Alpha noted; beta failed.'),
    ]);
    const deps = makeDeps({ model, limits: { maxPlanSteps: 2, stepMaxRetries: 0 } });

    const result = await orchestrate(makeContext({ text: 'note alpha and look up beta' }), deps);

    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'lookup-agent', 'composer']);
    expect(result).toMatchObject({ status: 'failed', failure: { blame: 'partial' }, modelCalls: 4 });
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toContain('Stopped: the step limit (2) was reached.');
  });
});

describe('C-4: each step is retried stepMaxRetries times, afresh', () => {
  it.each([0, 1, 2])('with stepMaxRetries %i a failing step gets exactly that many retries', async (stepMaxRetries) => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the weather')]),
      ...Array.from({ length: stepMaxRetries + 1 }, () => outage()),
      say('Sorry, no weather today.'),
    ]);
    const deps = makeDeps({ model, limits: { stepMaxRetries, maxReplans: 0 } });

    const result = await orchestrate(makeContext({ text: 'look up the weather' }), deps);

    expect(callsFor(model, 'lookup-agent')).toHaveLength(stepMaxRetries + 1);
    expect(result.modelCalls).toBe(stepMaxRetries + 3);
    expect(deps.logs.lines.filter((line) => line.event === 'step_retrying')).toHaveLength(stepMaxRetries);
  });

  it('gives a retry no transcript of the failed attempt, only a <previous_attempt> summary', async () => {
    const stallingAttempt = [
      { text: 'ZEBRA-PRIVATE-REASONING: let me look', toolCalls: [{ name: 'lookup', input: { query: 'weather' } }] },
      callTool('lookup', { query: 'weather' }),
    ];
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the weather')]),
      ...stallingAttempt,
      ...stallingAttempt,
      ...stallingAttempt,
      say('Sorry, I could not get the weather.'),
    ]);
    const deps = makeDeps({ model, limits: { stepMaxRetries: 2, maxReplans: 0 } });

    const result = await orchestrate(makeContext({ text: 'look up the weather' }), deps);

    expect(result.modelCalls).toBe(8);
    const agentCalls = callsFor(model, 'lookup-agent');
    expect(agentCalls).toHaveLength(6);
    const [first, , second, , third] = agentCalls;
    for (const attemptStart of [first!, second!, third!]) {
      expect(attemptStart.messages).toHaveLength(1);
      expect(typeof attemptStart.messages[0]!.content).toBe('string');
      expect(requestText(attemptStart)).not.toContain('ZEBRA-PRIVATE-REASONING');
      expect(requestText(attemptStart)).not.toContain('"results"');
    }
    expect(requestText(first!)).not.toContain('<previous_attempt>');
    expect(lastMessageText(second!)).toMatch(/<previous_attempt>[\s\S]*Attempt 1 failed: the agent repeated the same tool call[\s\S]*Tool calls made: lookup\(ok\)/);
    expect(lastMessageText(third!)).toMatch(/<previous_attempt>[\s\S]*Attempt 2 failed/);
    expect(lastMessageText(third!)).not.toContain('Attempt 1 failed');
    expect(storeTrail(deps.store).filter((entry) => entry.startsWith('step_finished'))).toEqual(['step_finished s1#0 failed', 'step_finished s1#1 failed', 'step_finished s1#2 failed']);
  });
});

describe('C-5: step timeout', () => {
  it('aborts a step that exceeds stepTimeoutMs and retries it with errorKind timeout', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the weather')]),
      { delayMs: 30_000, then: complete({ summary: 'too late' }) },
      complete({ summary: 'Sunny', reply: 'It is sunny today.' }),
    ]);
    const deps = makeDeps({ model, limits: { stepTimeoutMs: 100 } });

    const result = await orchestrate(makeContext({ text: 'look up the weather' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'It is sunny today.', modelCalls: 3 });
    const [slow, retry] = callsFor(model, 'lookup-agent');
    expect(slow!.signal?.aborted).toBe(true);
    expect(slow!.signal?.reason).toBeInstanceOf(TimeoutError);
    expect(retry!.signal?.aborted).toBe(false);
    expect(lastMessageText(retry!)).toContain('Attempt 1 failed: TimeoutError: step s1 took longer than 100 ms');
    const events = deps.logs.lines.filter((line) => line.stepId === 's1' && typeof line.event === 'string' && line.event !== 'step_started');
    expect(events.map((line) => [line.event, line.retryCount, line.errorKind])).toEqual([
      ['step_failed', 0, 'timeout'],
      ['step_retrying', 0, undefined],
      ['step_completed', 1, undefined],
    ]);
  });

  it('fails the step with errorKind timeout when every attempt times out', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the weather')]),
      { delayMs: 30_000, then: complete({ summary: 'too late' }) },
      { delayMs: 30_000, then: complete({ summary: 'too late' }) },
      say('Sorry, the weather service is too slow right now.'),
    ]);
    const deps = makeDeps({ model, limits: { stepTimeoutMs: 50, stepMaxRetries: 1, maxReplans: 0 } });

    const result = await orchestrate(makeContext({ text: 'look up the weather' }), deps);

    expect(purposes(model)).toEqual(['planner', 'lookup-agent', 'lookup-agent', 'composer']);
    expect(result).toMatchObject({ status: 'failed', reply: 'Sorry, the weather service is too slow right now.', modelCalls: 4 });
    expect(deps.logs.lines.filter((line) => line.event === 'step_failed').map((line) => line.errorKind)).toEqual(['timeout', 'timeout']);
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toMatch(/status="failed">Look up the weather\n\s+Failed: TimeoutError: step s1 took longer than 50 ms/);
  });

  it('times out a step whose tool never answers and ignores the abort signal', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the weather')]),
      callTool('lookup', { query: 'STUCK' }),
      callTool('lookup', { query: 'weather' }),
      complete({ summary: 'Sunny', reply: 'Sunny today.' }),
    ]);
    const deps = makeDeps({ model, limits: { stepTimeoutMs: 100 } });

    const result = await orchestrate(makeContext({ text: 'weather?' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Sunny today.', modelCalls: 4 });
    expect(deps.logs.lines.filter((line) => line.event === 'step_failed').map((line) => line.errorKind)).toEqual(['timeout']);
    expect(lastMessageText(callsFor(model, 'lookup-agent')[1]!)).toContain('lookup(interrupted: it may have taken effect)');
  });

  it('tells the retry about a change the timed-out attempt already made, and records its calls and tokens', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Add a note "HANG milk"')]),
      { toolCalls: [{ name: 'add_note', input: { text: 'HANG milk' } }], usage: { inputTokens: 120, outputTokens: 30 } },
      complete({ summary: 'The note was already there', reply: 'Milk is noted.' }),
    ]);
    const deps = makeDeps({ model, limits: { stepTimeoutMs: 100 } });

    const result = await orchestrate(makeContext({ text: 'note milk' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Milk is noted.', modelCalls: 3 });
    expect(deps.world.notes.map((note) => note.text)).toEqual(['HANG milk']);
    expect(lastMessageText(callsFor(model, 'notes-agent')[1]!)).toContain('add_note(interrupted: it may have taken effect)');
    const failed = deps.logs.lines.find((line) => line.event === 'step_failed');
    expect(failed).toMatchObject({ errorKind: 'timeout', modelCalls: 1, inputTokens: 120, outputTokens: 30, toolCalls: 1 });
  });
});

describe('a plan recovered by a replan', () => {
  // Known bug in src/orchestrator/orchestrate.ts finish(): it counts the superseded failed
  // step (and the old version's skipped steps) and reports the turn as failed/partial even
  // though the revision reached the goal. Flip to `it` once orchestrate.ts is fixed.
  it('reports success when the revision reached the goal', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the weather')]),
      outage(),
      createPlan([step('s1', 'lookup-agent', 'Look up the weather with the backup service')]),
      complete({ summary: 'Sunny' }),
      say('It is sunny.'),
    ]);
    const deps = makeDeps({ model, limits: { stepMaxRetries: 0 } });

    const result = await orchestrate(makeContext({ text: 'look up the weather' }), deps);

    expect(purposes(model)).toEqual(['planner', 'lookup-agent', 'replanner', 'lookup-agent', 'composer']);
    expect(storeTrail(deps.store).at(-1)).toBe('plan_finished completed');
    expect(result.status).toBe('succeeded');
  });
});

describe('the per-turn model budget (TURN_MAX_MODEL_CALLS, TURN_MAX_INPUT_TOKENS)', () => {
  /** An agent that never finishes: a new, valid lookup every call. */
  const endlessLookups = (count: number) => Array.from({ length: count }, (_, index) => callTool('lookup', { query: `page ${index}` }));

  it('stops at the call limit with what is done; the last call writes an honest reply', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Add the note "milk"'), step('s2', 'lookup-agent', 'Look up every train this year')]),
      callTool('add_note', { text: 'milk' }),
      complete({ summary: 'Added milk', created: [{ description: 'milk' }] }),
      // Attempt 1 hits the 6-call iteration cap; its retry gets two calls before the budget (11 for work) runs out.
      ...endlessLookups(8),
      say('I added milk, but looking up every train was too much for one message.'),
    ]);
    // One step at a time (PLAN_PARALLEL_STEPS=1), so the scripted calls come in this order.
    const deps = makeDeps({ model, limits: { turnMaxModelCalls: 12, stepMaxRetries: 2, maxReplans: 3, parallelSteps: 1 } });

    const result = await orchestrate(makeContext({ text: 'add milk and look up every train this year' }), deps);

    expect(result.modelCalls).toBe(12);
    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'notes-agent', ...Array(8).fill('lookup-agent'), 'composer']);
    expect(model.remaining).toBe(0);
    expect(result).toMatchObject({ status: 'failed', failure: { blame: 'budget' }, reply: 'I added milk, but looking up every train was too much for one message.' });
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk']);
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toContain('the turn reached its limit of 12 model calls');
    // The first lookup attempt hit the iteration cap and was retried; the retry ran into the budget: no more retries, no replan.
    expect(deps.logs.lines.filter((line) => line.event === 'step_failed').map((line) => line.errorKind)).toEqual(['model', 'budget']);
    expect(deps.logs.lines.some((line) => line.event === 'plan_replanned')).toBe(false);
  });

  it('stops on input tokens too, and says so without a model when even the reply cannot be written', async () => {
    const model = new ScriptedModel([
      { ...createPlan([step('s1', 'lookup-agent', 'Look up the weather')]), usage: { inputTokens: 6_000 } } as ScriptedTurn,
      { ...callTool('lookup', { query: 'weather' }), usage: { inputTokens: 5_000 } } as ScriptedTurn,
      say('never reached'),
    ]);
    const deps = makeDeps({ model, limits: { turnMaxInputTokens: 10_000 } });

    const result = await orchestrate(makeContext({ text: 'weather?' }), deps);

    expect(result.modelCalls).toBe(2);
    expect(model.remaining).toBe(1);
    expect(result).toMatchObject({ status: 'failed', failure: { blame: 'budget' }, reply: fallbackReply('budget', 'en') });
  });
});
