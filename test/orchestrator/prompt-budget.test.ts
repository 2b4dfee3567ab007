import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { estimateTokens } from '../../src/shared/tokens.js';
import { makeContext } from './support/context.js';
import { makeDeps } from './support/deps.js';

const systemOf = (model: ScriptedModel) => (model.calls[0]?.system ?? []).map((block) => block.text).join('\n');

describe('the planner prompt keeps to its budget (CTX-6)', () => {
  const manyFacts = Array.from({ length: 400 }, (_, index) => ({
    id: `fact_${index}`,
    category: 'other',
    content: `Fact number ${index}: ${'a fairly long detail about the user '.repeat(3)}`,
  }));

  it('leaves out facts beyond the budget, saying how many, instead of overflowing', async () => {
    const model = new ScriptedModel([{ text: 'Hi!' }]);
    const deps = makeDeps({ model, limits: { plannerPromptTokens: 3000 } });

    await orchestrate(makeContext({ facts: manyFacts }), deps);

    const system = systemOf(model);
    const request = model.calls[0]!;
    const total = estimateTokens(system) + estimateTokens(JSON.stringify(request.messages));
    expect(total).toBeLessThanOrEqual(3000 + 200);
    expect(system).toContain('fact_0');
    expect(system).not.toContain('fact_399');
    expect(system).toMatch(/<!-- \d+ more saved fact\(s\) not shown/);
  });

  it('shows every fact when they fit', async () => {
    const model = new ScriptedModel([{ text: 'Hi!' }]);
    const deps = makeDeps({ model, limits: { plannerPromptTokens: 8000 } });

    await orchestrate(makeContext({ facts: manyFacts.slice(0, 5) }), deps);

    const system = systemOf(model);
    for (const fact of manyFacts.slice(0, 5)) expect(system).toContain(fact.id);
    expect(system).not.toContain('not shown');
  });
});
