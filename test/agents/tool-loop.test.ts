/**
 * runToolLoop (docs/ARCHITECTURE.md "The orchestrator" 2): only the listed tools run, bad arguments
 * and throwing tools become error results the model sees, the same call twice in a row is
 * a stall, and the loop is capped in iterations.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolLoop, stableJson, type ToolLoopOptions, type ToolLoopProgress } from '../../src/agents/tool-loop.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { emptyUsage, type ModelRequest } from '../../src/model/model-client.js';
import { ScriptedModel, type ScriptedTurn } from '../../src/model/scripted-model.js';
import { ManualClock } from '../../src/shared/clock.js';
import { ToolError } from '../../src/shared/errors.js';
import { defineTool, ok, type ToolDefinition } from '../../src/tools/tool.js';
import { capturingLogger } from '../helpers/herald-harness.js';
import { callTool, callTools, contentText, say, toolResultsOf } from '../orchestrator/support/index.js';

const ran: string[] = [];

const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  mutates: false,
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  async run({ a, b }) {
    ran.push(`add:${a}+${b}`);
    return ok({ sum: a + b });
  },
});

const saveTool = defineTool({
  name: 'save',
  description: 'Saves a value.',
  mutates: true,
  inputSchema: z.object({ value: z.string() }),
  async run({ value }) {
    ran.push(`save:${value}`);
    return ok({ effect: 'created' });
  },
});

const throwingTool = defineTool({
  name: 'buggy',
  description: 'Always throws.',
  mutates: false,
  inputSchema: z.object({}),
  async run() {
    throw new TypeError("Cannot read properties of undefined (reading 'x')");
  },
});

const refusingTool = defineTool({
  name: 'refuse',
  description: 'Throws a ToolError.',
  mutates: false,
  inputSchema: z.object({}),
  async run() {
    throw new ToolError('the calendar is read-only');
  },
});

const finishTool = defineTool({
  name: 'finish',
  description: 'Reports the result.',
  mutates: false,
  inputSchema: z.object({ answer: z.number() }),
  run: async () => ok('Recorded.'),
});

function loop(turns: ScriptedTurn[], overrides: Partial<ToolLoopOptions> = {}) {
  ran.length = 0;
  const model = new ScriptedModel(turns);
  const { logger, logs } = capturingLogger();
  const options: ToolLoopOptions = {
    model,
    request: { model: 'test-model', system: [{ text: 'system' }], maxTokens: 256, purpose: 'test' },
    messages: [{ role: 'user', content: 'add 2 and 3' }],
    tools: [addTool, saveTool, throwingTool, refusingTool] as ToolDefinition[],
    finishTool,
    toolContext: { userId: 'user_1', timezone: 'UTC', clock: new ManualClock(), logger },
    maxIterations: 5,
    ...overrides,
  };
  return { model, logs, run: () => runToolLoop(options) };
}

const resultsSeenBy = (request: ModelRequest) => toolResultsOf(request).map((block) => ({ isError: Boolean(block.isError), content: block.content }));

describe('runToolLoop', () => {
  it('ends on plain text with no tool call', async () => {
    const { model, run } = loop([say('5')]);
    const result = await run();
    expect(result).toMatchObject({ stop: 'text', text: '5', modelCalls: 1, toolCalls: [] });
    expect(model.calls).toHaveLength(1);
  });

  it('runs tools, returns their results, and ends when the finishing tool gets valid input', async () => {
    const { model, run } = loop([callTool('add', { a: 2, b: 3 }), callTool('finish', { answer: 5 })]);
    const result = await run();
    expect(result).toMatchObject({ stop: 'finished', finish: { answer: 5 }, modelCalls: 2 });
    expect(result.toolCalls).toEqual([{ name: 'add', input: { a: 2, b: 3 }, isError: false, mutates: false, result: { sum: 5 } }]);
    expect(resultsSeenBy(model.calls[1]!)).toEqual([{ isError: false, content: '{"sum":5}' }]);
    expect(model.calls[0]!.tools!.map((tool) => tool.name)).toEqual(['add', 'save', 'buggy', 'refuse', 'finish']);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('records each request as it was sent, not as the transcript grew afterwards', async () => {
    const { model, run } = loop([callTool('add', { a: 2, b: 3 }), callTool('finish', { answer: 5 })]);
    await run();
    expect(model.calls[0]!.messages).toHaveLength(1);
    expect(model.calls[1]!.messages).toHaveLength(3);
  });

  it('turns malformed tool input into an error result the model sees, and lets it correct itself', async () => {
    const { model, run } = loop([callTool('add', { a: 'two', b: 3 }), callTool('add', { a: 2, b: 3 }), callTool('finish', { answer: 5 })]);
    const result = await run();
    expect(result).toMatchObject({ stop: 'finished', modelCalls: 3 });
    const [rejected] = resultsSeenBy(model.calls[1]!);
    expect(rejected).toMatchObject({ isError: true });
    expect(rejected!.content).toMatch(/^Invalid arguments for add: a: /);
    expect(ran).toEqual(['add:2+3']);
    expect(result.toolCalls.map((call) => call.isError)).toEqual([true, false]);
  });

  it('turns a throwing tool into an error result and a warning, not a crash', async () => {
    const { model, logs, run } = loop([callTool('buggy', {}), callTool('refuse', {}), say('Sorry, that did not work.')]);
    const result = await run();
    expect(result).toMatchObject({ stop: 'text', text: 'Sorry, that did not work.', modelCalls: 3 });
    expect(resultsSeenBy(model.calls[1]!).at(-1)).toEqual({ isError: true, content: "The tool failed: TypeError: Cannot read properties of undefined (reading 'x')" });
    // A HeraldError's own message goes to the model as it is.
    expect(resultsSeenBy(model.calls[2]!).at(-1)).toEqual({ isError: true, content: 'the calendar is read-only' });
    expect(logs.lines.filter((line) => line.msg === 'tool threw; returned to the model as an error result').map((line) => line.tool)).toEqual(['buggy', 'refuse']);
  });

  it('answers an unknown tool with an error result naming the available tools', async () => {
    const { model, run } = loop([callTool('delete_everything', {}), say('ok')]);
    const result = await run();
    expect(resultsSeenBy(model.calls[1]!)).toEqual([{ isError: true, content: 'The tool "delete_everything" is not available to you. Available: add, save, buggy, refuse.' }]);
    expect(result.toolCalls).toEqual([{ name: 'delete_everything', input: {}, isError: true, mutates: false, result: expect.any(String) }]);
  });

  it('ends an endless loop of new calls at the iteration cap, with exactly maxIterations model calls', async () => {
    const turns = Array.from({ length: 10 }, (_, index) => callTool('add', { a: index, b: 1 }));
    const { model, run } = loop(turns, { maxIterations: 4 });
    const result = await run();
    expect(result).toMatchObject({ stop: 'iteration_limit', modelCalls: 4 });
    expect(model.calls).toHaveLength(4);
    expect(ran).toEqual(['add:0+1', 'add:1+1', 'add:2+1', 'add:3+1']);
  });

  it('ends as stalled when the same call with the same arguments comes twice in a row (key order ignored)', async () => {
    const { model, run } = loop([callTool('add', { a: 2, b: 3 }), callTool('add', { b: 3, a: 2 }), callTool('finish', { answer: 5 })]);
    const result = await run();
    expect(result).toMatchObject({ stop: 'stalled', modelCalls: 2 });
    expect(ran).toEqual(['add:2+3']);
    expect(model.remaining).toBe(1);
  });

  it('ends as repeated_invalid_input when input that was refused comes again unchanged (bad arguments or an unknown tool)', async () => {
    const badArguments = loop([callTool('add', { a: 'two', b: 3 }), callTool('add', { b: 3, a: 'two' }), callTool('finish', { answer: 5 })]);
    const result = await badArguments.run();
    expect(result).toMatchObject({ stop: 'repeated_invalid_input', modelCalls: 2, inputError: expect.stringMatching(/^Invalid arguments for add: a: /) });
    expect(ran).toEqual([]);

    const unknownTool = loop([callTool('subtract', { a: 1 }), callTool('subtract', { a: 1 })]);
    await expect(unknownTool.run()).resolves.toMatchObject({ stop: 'repeated_invalid_input', modelCalls: 2, inputError: expect.stringContaining('not available') });

    const badFinish = loop([callTool('finish', { answer: 'five' }), callTool('finish', { answer: 'five' })]);
    await expect(badFinish.run()).resolves.toMatchObject({ stop: 'repeated_invalid_input', modelCalls: 2 });
  });

  it('keeps correcting when the invalid input changes', async () => {
    const { run } = loop([callTool('add', { a: 'two', b: 3 }), callTool('add', { a: '2', b: 3 }), callTool('add', { a: 2, b: 3 }), callTool('finish', { answer: 5 })]);
    await expect(run()).resolves.toMatchObject({ stop: 'finished', modelCalls: 4 });
    expect(ran).toEqual(['add:2+3']);
  });

  it('hands thinking blocks back with the tool calls, unchanged and in order', async () => {
    const thinking = [
      { type: 'thinking' as const, thinking: 'I should add them.', signature: 'sig-1' },
      { type: 'redacted_thinking' as const, data: 'opaque' },
    ];
    const { model, run } = loop([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }], thinking }, callTool('finish', { answer: 3 })]);
    await run();
    const assistant = model.calls[1]!.messages[1]!;
    expect(assistant.role).toBe('assistant');
    expect(assistant.content).toEqual([...thinking, { type: 'tool_use', id: expect.any(String), name: 'add', input: { a: 1, b: 2 } }]);
  });

  it('does not call it a stall when the arguments change, or the same call returns later', async () => {
    const { run } = loop([callTool('add', { a: 2, b: 3 }), callTool('add', { a: 2, b: 4 }), callTool('add', { a: 2, b: 3 }), callTool('finish', { answer: 5 })]);
    const result = await run();
    expect(result).toMatchObject({ stop: 'finished', modelCalls: 4 });
  });

  it('runs domain tools before judging a finishing call made alongside them', async () => {
    const { run } = loop([callTools(['finish', { answer: 1 }], ['save', { value: 'x' }])]);
    const result = await run();
    expect(result).toMatchObject({ stop: 'finished', finish: { answer: 1 }, modelCalls: 1 });
    expect(result.toolCalls).toEqual([{ name: 'save', input: { value: 'x' }, isError: false, mutates: true, result: { effect: 'created' } }]);
  });

  it('sends an invalid finishing call back for correction, and gives up after maxFinishRejections', async () => {
    const corrected = loop([callTool('finish', { answer: 'five' }), callTool('finish', { answer: 5 })], { maxFinishRejections: 1 });
    await expect(corrected.run()).resolves.toMatchObject({ stop: 'finished', finish: { answer: 5 }, modelCalls: 2 });
    expect(contentText(corrected.model.calls[1]!.messages.at(-1)!.content)).toMatch(/^Invalid input: answer: .*Call finish again with corrected input\.$/);

    const hopeless = loop([callTool('finish', { answer: 'five' }), callTool('finish', { answer: 'six' }), callTool('finish', { answer: 5 })], { maxFinishRejections: 1 });
    const result = await hopeless.run();
    expect(result).toMatchObject({ stop: 'invalid_finish', modelCalls: 2 });
    expect(result.finishError).toMatch(/^answer: /);
  });

  it('keeps only the first valid finishing call of a response', async () => {
    const { run } = loop([callTools(['finish', { answer: 1 }], ['finish', { answer: 2 }])]);
    await expect(run()).resolves.toMatchObject({ stop: 'finished', finish: { answer: 1 } });
  });

  it('throws when aborted, and keeps its progress up to date for the caller', async () => {
    const controller = new AbortController();
    const progress: ToolLoopProgress = { toolCalls: [], usage: emptyUsage(), modelCalls: 0 };
    const { model, run } = loop(
      [
        { toolCalls: [{ name: 'save', input: { value: 'x' } }], usage: { inputTokens: 10, outputTokens: 2 } },
        (request) => {
          controller.abort(new Error('stop now'));
          return { delayMs: 10_000, then: say(`never: ${request.messages.length}`) };
        },
      ],
      { signal: controller.signal, progress, toolContext: { userId: 'u', timezone: 'UTC', clock: new ManualClock(), logger: createSilentLogger(), signal: controller.signal } },
    );
    await expect(run()).rejects.toThrow('stop now');
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.signal?.aborted).toBe(true);
    expect(progress).toMatchObject({ modelCalls: 2, usage: { inputTokens: 10, outputTokens: 2 } });
    expect(progress.toolCalls).toEqual([{ name: 'save', input: { value: 'x' }, isError: false, mutates: true, result: { effect: 'created' } }]);
  });

  it('stops waiting for a tool that ignores the abort signal', async () => {
    const stuck = defineTool({ name: 'stuck', description: 'Never answers.', mutates: true, inputSchema: z.object({}), run: () => new Promise<never>(() => {}) });
    const progress: ToolLoopProgress = { toolCalls: [], usage: emptyUsage(), modelCalls: 0 };
    const signal = AbortSignal.timeout(50);
    const { run } = loop([callTool('stuck', {})], { tools: [stuck], signal, progress, toolContext: { userId: 'u', timezone: 'UTC', clock: new ManualClock(), logger: createSilentLogger(), signal } });
    await expect(run()).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(progress.toolCalls).toEqual([{ name: 'stuck', input: {}, isError: true, mutates: true, result: 'interrupted by a timeout', interrupted: true }]);
  });

  it('holds a call that asks for confirmation, with the exact arguments the tool pinned; the tool does not run', async () => {
    const deleteTool = defineTool({
      name: 'delete_event',
      description: 'Deletes an event.',
      mutates: true,
      inputSchema: z.object({ match: z.string().optional(), eventId: z.string().optional() }),
      confirmation: async () => ({ question: 'Delete "Dentist"?', done: 'Deleted "Dentist".', input: { eventId: 'ev-7' } }),
      async run() {
        ran.push('delete');
        return ok({ effect: 'deleted' });
      },
    });
    ran.length = 0;
    const { run } = loop([callTool('delete_event', { match: 'dentist' }), say('Waiting for the YES.')], { tools: [deleteTool] });
    const result = await run();
    expect(ran).toEqual([]);
    expect(result.toolCalls).toEqual([
      { name: 'delete_event', input: { eventId: 'ev-7' }, isError: false, mutates: true, result: { effect: 'pending_confirmation', question: 'Delete "Dentist"?' }, pendingConfirmation: { question: 'Delete "Dentist"?', done: 'Deleted "Dentist".' } },
    ]);
  });

  it('stops waiting for a model client that ignores the abort signal', async () => {
    const deaf = { generate: () => new Promise<never>(() => {}) };
    const { run } = loop([], { model: deaf, signal: AbortSignal.timeout(50) });
    await expect(run()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already gone'));
    const { model, run } = loop([say('hi')], { signal: controller.signal });
    await expect(run()).rejects.toThrow('already gone');
    expect(model.calls).toHaveLength(0);
  });
});

describe('stableJson', () => {
  it('sorts keys at every depth so equal arguments compare equal', () => {
    expect(stableJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(stableJson(undefined)).toBe('undefined');
  });
});
