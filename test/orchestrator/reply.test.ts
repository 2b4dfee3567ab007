/**
 * The reply (docs/ARCHITECTURE.md "The orchestrator" 5 and 7): one composer call for a multi-step
 * plan, none when a single step already wrote the reply, a fallback when composing fails,
 * and one progress message for a slow plan only.
 */
import { describe, expect, it, vi } from 'vitest';
import { ScriptedModel, type ScriptedTurn } from '../../src/model/scripted-model.js';
import { fallbackReply, progressMessage } from '../../src/texts/fallback-replies.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { callsFor, complete, createPlan, lastMessageText, makeContext, makeDeps, outage, purposes, say, step, systemText } from './support/index.js';

const twoSteps = [step('s1', 'lookup-agent', 'Look up the train times'), step('s2', 'notes-agent', 'Note the first train', ['s1'])];

describe('composing', () => {
  it('makes no composer call when the single step wrote the reply', async () => {
    const model = new ScriptedModel([createPlan([step('s1', 'lookup-agent', 'Look up the train times')]), complete({ summary: 'First train 07:10', reply: 'The first train is at 7:10.' })]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'train times?' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', path: 'plan', reply: 'The first train is at 7:10.', modelCalls: 2 });
    expect(purposes(model)).toEqual(['planner', 'lookup-agent']);
    // The single step was asked to write the reply, in the user's language.
    expect(lastMessageText(model.calls[1]!)).toMatch(/<reply>\nYour result is the whole answer to the user\. .* in English,/);
  });

  it('composes when the single step did not write a reply', async () => {
    const model = new ScriptedModel([createPlan([step('s1', 'lookup-agent', 'Look up the train times')]), complete({ summary: 'First train 07:10' }), say('First train: 7:10.')]);

    const result = await orchestrate(makeContext({ text: 'train times?' }), makeDeps({ model }));

    expect(result).toMatchObject({ reply: 'First train: 7:10.', modelCalls: 3 });
    expect(purposes(model)).toEqual(['planner', 'lookup-agent', 'composer']);
  });

  it('makes exactly one composer call for a multi-step plan, even when steps offered wording', async () => {
    const model = new ScriptedModel([
      createPlan(twoSteps),
      complete({ summary: 'First train 07:10', reply: 'SUGGESTED-WORDING-1' }),
      complete({ summary: 'Nothing to note' }),
      say('The first train is at 7:10.'),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'train times? note the first one' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'The first train is at 7:10.', modelCalls: 4 });
    expect(callsFor(model, 'composer')).toHaveLength(1);
    const composer = callsFor(model, 'composer')[0]!;
    expect(composer).toMatchObject({ model: 'test-composer-model', temperature: 0 });
    expect(lastMessageText(composer)).toContain('Suggested wording: SUGGESTED-WORDING-1');
    // Multi-step agents are not asked to write the reply.
    expect(lastMessageText(callsFor(model, 'lookup-agent')[0]!)).not.toContain('<reply>');
  });

  it('tells the composer the user’s language', async () => {
    const model = new ScriptedModel([createPlan(twoSteps), complete({ summary: 'a' }), complete({ summary: 'b' }), say('בוצע.')]);
    await orchestrate(makeContext({ text: 'תבדוק רכבות ותרשום', user: { language: null } }), makeDeps({ model }));
    expect(systemText(callsFor(model, 'composer')[0]!)).toContain('<reply_language>Hebrew</reply_language>');
  });

  it('falls back to a reply without the model when the composer fails, and never throws', async () => {
    const model = new ScriptedModel([createPlan(twoSteps), complete({ summary: 'First train 07:10', reply: 'The first train is at 7:10.' }), complete({ summary: 'Noted' }), outage('composer down')]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'train times? note the first one' }), deps);

    expect(result.modelCalls).toBe(4);
    // The plan completed: what the steps said for themselves, no apology (it would invite a repeat).
    expect(result.reply).toBe('The first train is at 7:10.');
    expect(deps.logs.lines.find((line) => line.msg === 'composing failed; using a fallback reply')).toMatchObject({ level: 40 });
  });

  it('falls back when the composer answers with no text', async () => {
    const model = new ScriptedModel([createPlan(twoSteps), complete({ summary: 'a' }), complete({ summary: 'b' }), say('')]);

    const result = await orchestrate(makeContext({ text: 'train times? note the first one' }), makeDeps({ model }));

    expect(result).toMatchObject({ reply: fallbackReply('done', 'en'), modelCalls: 4 });
  });
});

/** An onProgress spy and a promise that settles when it is first called. */
function progressGate(behaviour: () => Promise<void> = async () => {}) {
  let release!: () => void;
  const sent = new Promise<void>((resolve) => (release = resolve));
  const onProgress = vi.fn(async (_text: string) => {
    release();
    await behaviour();
  });
  return { onProgress, sent };
}

/** A turn that answers only after the progress message went out: a plan slower than progressAfterMs. */
const afterProgress = (sent: Promise<void>, turn: ScriptedTurn): ScriptedTurn => async () => {
  await sent;
  return turn;
};

describe('progress message', () => {
  it('sends exactly one progress message while a slow plan runs', async () => {
    const { onProgress, sent } = progressGate();
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the train times')]),
      afterProgress(sent, complete({ summary: 'First train 07:10', reply: 'The first train is at 7:10.' })),
    ]);
    const deps = makeDeps({ model, limits: { progressAfterMs: 20 } });

    const result = await orchestrate(makeContext({ text: 'train times?' }), deps, { onProgress });

    expect(result).toMatchObject({ reply: 'The first train is at 7:10.', modelCalls: 2 });
    expect(onProgress).toHaveBeenCalledTimes(1);
    expect(onProgress).toHaveBeenCalledWith(progressMessage('en'));
    expect(deps.logs.lines.find((line) => line.msg === 'plan still running; sending a progress message')).toMatchObject({ afterMs: 20, turnId: 'turn_1' });
  });

  it('sends it in Hebrew to a Hebrew speaker', async () => {
    const { onProgress, sent } = progressGate();
    const model = new ScriptedModel([afterProgress(sent, say('שלום'))]);
    await orchestrate(makeContext({ text: 'מה נשמע?', user: { language: 'he' } }), makeDeps({ model, limits: { progressAfterMs: 10 } }), { onProgress });
    expect(onProgress.mock.calls).toEqual([[progressMessage('he')]]);
  });

  it('sends none for a fast plan, not even after the turn ends', async () => {
    const onProgress = vi.fn(async (_text: string) => {});
    const model = new ScriptedModel([say('Hi!')]);

    await orchestrate(makeContext({ text: 'hi' }), makeDeps({ model, limits: { progressAfterMs: 250 } }), { onProgress });
    // Nothing to await: give a cancelled timer its chance to (wrongly) fire.
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(onProgress).not.toHaveBeenCalled();
  });

  it('survives a failing progress sender', async () => {
    const { onProgress, sent } = progressGate(async () => {
      throw new Error('twilio down');
    });
    const model = new ScriptedModel([afterProgress(sent, say('Hi!'))]);
    const deps = makeDeps({ model, limits: { progressAfterMs: 10 } });

    const result = await orchestrate(makeContext({ text: 'hi' }), deps, { onProgress });

    expect(result).toMatchObject({ reply: 'Hi!', status: 'succeeded' });
    expect(onProgress).toHaveBeenCalledTimes(1);
    expect(deps.logs.lines.find((line) => line.msg === 'progress message failed')).toMatchObject({ level: 40, error: 'Error: twilio down' });
  });
});
