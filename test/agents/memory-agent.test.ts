import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryAgent } from '../../src/agents/memory/memory-agent.js';
import { memoryTools } from '../../src/agents/memory/memory-tools.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { factCategories, FactService } from '../../src/memory/fact-service.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { PlanStep } from '../../src/orchestrator/plan-state.js';
import { runStep } from '../../src/orchestrator/step-runner.js';
import { ManualClock } from '../../src/shared/clock.js';
import { describeValidationError, toolSpecOf } from '../../src/tools/tool-spec.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/tool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * memory-agent (seed 001 step 3.2, docs/ARCHITECTURE.md "Agents and tools"): its four contract tools,
 * their input validation (what the model gets back when it sends bad arguments), and the
 * agent running a step with the real FactService, checked against what its tools did.
 */
describe('memory-agent', () => {
  let database: TestDatabase;
  let facts: FactService;
  let tools: Map<string, ToolDefinition>;
  let userId: string;
  const clock = new ManualClock('2026-02-01T12:00:00Z');
  const logger = createSilentLogger();
  const context = (): ToolContext => ({ userId, timezone: 'America/New_York', clock, logger });

  beforeAll(async () => {
    database = await createTestDatabase(4);
    facts = new FactService(database.prisma, database.pool, clock);
    tools = new Map(memoryTools(facts).map((tool) => [tool.name, tool]));
    userId = (await database.prisma.user.create({ data: { phone: '+14155550199', timezone: 'America/New_York' } })).id;
  });
  afterAll(async () => {
    await database.drop();
  });

  const tool = (name: string) => tools.get(name)!;
  /** What the tool loop sends back to the model for bad arguments. */
  const rejection = (name: string, input: unknown): string | undefined => {
    const parsed = tool(name).inputSchema.safeParse(input);
    return parsed.success ? undefined : describeValidationError(parsed.error);
  };

  it('has exactly the contract tools, marked mutating or not', () => {
    const agent = memoryAgent(facts);
    expect(agent.name).toBe('memory-agent');
    expect(agent.tools.map((candidate) => [candidate.name, candidate.mutates])).toEqual([
      ['remember_fact', true],
      ['get_user_facts', false],
      ['update_fact', true],
      ['remove_fact', true],
    ]);
    // The model is told the categories (work, personal, preferences…) as a JSON Schema enum.
    const spec = toolSpecOf(tool('remember_fact'));
    expect(JSON.stringify(spec.inputSchema)).toContain(JSON.stringify([...factCategories]));
    expect(factCategories).toEqual(expect.arrayContaining(['work', 'personal', 'preferences']));
  });

  it('rejects bad arguments with a message the model can act on', () => {
    expect(rejection('remember_fact', { category: 'food', content: 'Is vegetarian' })).toMatch(/^category: /);
    expect(rejection('remember_fact', { category: 'preferences', content: '   ' })).toMatch(/^content: /);
    expect(rejection('remember_fact', { category: 'preferences' })).toMatch(/^content: /);
    expect(rejection('remember_fact', { category: 'preferences', content: 'x'.repeat(501) })).toMatch(/^content: /);
    expect(rejection('remember_fact', { category: 'preferences', subject: '', content: 'Is vegetarian' })).toMatch(/^subject: /);
    expect(rejection('get_user_facts', { category: 'hobbies' })).toMatch(/^category: /);
    expect(rejection('update_fact', { factId: 'fact-1', content: 'Is vegan' })).toMatch(/^factId: /);
    expect(rejection('update_fact', { factId: randomUUID() })).toMatch(/give content or category to change/);
    expect(rejection('update_fact', { factId: randomUUID(), content: '' })).toMatch(/^content: /);
    expect(rejection('remove_fact', { factId: '42' })).toMatch(/^factId: /);
    expect(rejection('remove_fact', {})).toMatch(/^factId: /);

    expect(rejection('remember_fact', { category: 'preferences', subject: 'diet', content: ' Is vegetarian ' })).toBeUndefined();
    expect(rejection('get_user_facts', {})).toBeUndefined();
    expect(rejection('update_fact', { factId: randomUUID(), category: 'health' })).toBeUndefined();
  });

  it('accepts the ids facts really have (UUID v7)', async () => {
    const saved = await facts.remember(userId, { category: 'work', subject: 'employer', content: 'Works at Acme' });
    expect(rejection('remove_fact', { factId: saved.fact.id })).toBeUndefined();
    expect(rejection('update_fact', { factId: saved.fact.id, content: 'Works at Globex' })).toBeUndefined();
    await facts.remove(userId, saved.fact.id);
  });

  it('answers an unknown fact id with an error result, not a throw', async () => {
    const missing = randomUUID();
    const update = await tool('update_fact').run(tool('update_fact').inputSchema.parse({ factId: missing, content: 'x' }), context());
    expect(update).toEqual({ isError: true, error: expect.stringContaining(`No saved fact has id ${missing}`) });
    const remove = await tool('remove_fact').run({ factId: missing }, context());
    expect(remove).toEqual({ isError: true, error: expect.stringContaining('get_user_facts') });
  });

  it('reports effects the verifier can check: created, unchanged, updated, deleted', async () => {
    // A user of its own: the facts listed are exactly the ones this test saved.
    const own = { ...context(), userId: (await database.prisma.user.create({ data: { phone: '+14155550198', timezone: 'America/New_York' } })).id };
    const remember = tool('remember_fact');
    const run = (input: unknown) => remember.run(remember.inputSchema.parse(input), own);
    const created = await run({ category: 'preferences', subject: 'diet', content: 'Is vegetarian' });
    expect(created).toMatchObject({ isError: false, output: { effect: 'created' } });
    expect(await run({ category: 'preferences', content: 'is vegetarian.' })).toMatchObject({ output: { effect: 'unchanged' } });
    expect(await run({ category: 'preferences', subject: 'diet', content: 'Eats fish now' })).toMatchObject({ output: { effect: 'updated' } });
    const listed = await tool('get_user_facts').run({}, own);
    expect(listed).toMatchObject({ isError: false, output: { count: 1, facts: [{ content: 'Eats fish now', subject: 'diet' }] } });
    const id = (created as { output: { fact: { id: string } } }).output.fact.id;
    expect(await tool('remove_fact').run({ factId: id }, own)).toMatchObject({ output: { effect: 'deleted', fact: { id } } });
  });

  describe('running a step', () => {
    const step = (task: string): PlanStep => ({ id: 'step_1', agent: 'memory-agent', task, dependsOn: [], status: 'running', retryCount: 0, version: 1 });
    const attempt = (task: string) => ({
      step: step(task),
      agent: memoryAgent(facts),
      user: { id: userId, name: 'Ada', timezone: 'America/New_York', language: 'en', isNew: false },
      replyLanguage: 'English',
      previousOutputs: [],
      reply: 'whole' as const,
      signal: new AbortController().signal,
    });
    const deps = (model: ScriptedModel) => ({ model, models: { planner: { name: 'planner', fallbacks: [] }, agent: { name: 'agent', fallbacks: [] } }, clock, logger, maxIterations: 6 });

    it('stores the fact and succeeds when its report matches what the tools did', async () => {
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: 'remember_fact', input: { category: 'preferences', subject: 'meetings', content: "Doesn't like early meetings" } },
            { name: 'complete_step', input: { summary: 'Saved 1 fact', reply: 'Noted.', created: [{ description: "Doesn't like early meetings" }] } },
          ],
        },
      ]);
      const result = await runStep(attempt("Save: the user doesn't like early meetings (preferences)."), deps(model));
      expect(result).toMatchObject({ success: true, modelCalls: 1, output: { reply: 'Noted.' } });
      // The agent saw its task and user config only: no memory, no history.
      const system = model.calls[0]!.system.map((block) => block.text).join('\n');
      expect(system).not.toContain('<user_memory>');
      expect(model.calls[0]!.messages).toHaveLength(1);
      expect((await facts.list(userId, 'preferences')).map((fact) => fact.content)).toContain("Doesn't like early meetings");
    });

    it('fails verification when it claims a save whose tool call was rejected', async () => {
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: 'remember_fact', input: { category: 'food', content: 'Likes sushi' } },
            { name: 'complete_step', input: { summary: 'Saved 1 fact', created: [{ description: 'Likes sushi' }] } },
          ],
        },
      ]);
      const result = await runStep(attempt('Save: the user likes sushi.'), deps(model));
      expect(result.success).toBe(false);
      expect(result.errorKind).toBe('verification');
      expect(result.error).toMatch(/claimed 1 created but 0/);
      expect(result.toolCalls[0]).toMatchObject({ name: 'remember_fact', isError: true, result: expect.stringMatching(/^Invalid arguments for remember_fact: category: /) });
      expect((await facts.list(userId)).map((fact) => fact.content)).not.toContain('Likes sushi');
    });

    it('fails verification when it claims "created" for a fact that was already saved', async () => {
      await facts.remember(userId, { category: 'preferences', subject: 'tea', content: 'Drinks green tea' });
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: 'remember_fact', input: { category: 'preferences', subject: 'tea', content: 'Drinks green tea' } },
            { name: 'complete_step', input: { summary: 'Saved', created: [{ description: 'Drinks green tea' }] } },
          ],
        },
      ]);
      const result = await runStep(attempt('Save: the user drinks green tea.'), deps(model));
      expect(result).toMatchObject({ success: false, errorKind: 'verification' });
    });
  });
});
