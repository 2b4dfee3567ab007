/**
 * The plan executor's rules, exactly (src/orchestrator/executor.ts and plan-steps.ts), run
 * through `executePlan` with a scripted model and a scripted replanner, one step at a time
 * unless said otherwise so the script's order is fixed:
 * - what a finished step means for the rest: a question only with needsClarification AND a
 *   question (several joined by a newline); "found nothing" only while a dependent is still
 *   waiting; a replan wanted at the replan limit leaves the plan to carry on as it is;
 * - how a failure ends: recorded in plan.errors, a budget stop (no step starts any more) versus
 *   a stuck stop (the other branches finish), the replan limit and the step limit (counting the
 *   steps a replan added), each with its note and the plan failed;
 * - the turn's model budget checked before each step starts, the plan's time running out;
 * - what a step is handed: only its own attachments, a summary of the failed attempt, an
 *   unknown agent failing at once; what a replan is told about outside (untrusted) text;
 * - what operators see: the span per attempt, the logged step transitions.
 */
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/agents/agent-definition.js';
import { createAgentRegistry, type AgentRegistry } from '../../src/agents/agent-registry.js';
import type { OrchestratorContext } from '../../src/context/orchestrator-context.js';
import { emptyUsage, type ModelRequest } from '../../src/model/model-client.js';
import { ScriptedModel, type ScriptedTurn } from '../../src/model/scripted-model.js';
import { TurnBudgetExceeded } from '../../src/model/turn-budget.js';
import { executePlan, type ExecutionOutcome, type ExecutorDependencies } from '../../src/orchestrator/executor.js';
import type { ExecutionPlan, PlanStep } from '../../src/orchestrator/plan-state.js';
import type { PlanningOutcome, PlanningRequest } from '../../src/orchestrator/planner.js';
import type { SpanAttributes, Tracing } from '../../src/observability/tracing-types.js';
import { callsFor, callTool, complete, createTestWorld, makeContext, makeDeps, outage, storeTrail, testAgents, when } from '../orchestrator/support/index.js';
import { z } from 'zod';

/** An agent whose output is outside text (mail): a later prompt showing it must not fetch pages. */
const mailAgent = defineAgent({
  name: 'mail-agent',
  description: 'Reads the user mail.',
  capabilities: ['read mail'],
  examples: ['What did Sam write?'],
  triggers: { english: ['mail'], hebrew: ['מייל'] },
  priority: 20,
  tools: [],
  systemPrompt: 'MAIL-AGENT-PROMPT',
  modelRole: 'agent',
  maxTokens: 512,
  promptBudgetTokens: 4000,
  outputData: z.object({}).passthrough(),
  untrustedOutput: true,
});

interface StepSpec {
  id: string;
  agent: string;
  task?: string;
  dependsOn?: string[];
  attachments?: string[];
  /** A step finished before this run (a resumed plan's kept step). */
  completed?: { summary: string };
}

function planOf(steps: StepSpec[]): ExecutionPlan {
  return {
    id: 'plan_1',
    goal: 'test goal',
    analysis: 'test analysis',
    steps: steps.map(
      (spec): PlanStep => ({
        id: spec.id,
        agent: spec.agent,
        task: spec.task ?? `Task of ${spec.id}`,
        dependsOn: spec.dependsOn ?? [],
        ...(spec.attachments ? { attachments: spec.attachments } : {}),
        status: spec.completed ? 'completed' : 'pending',
        retryCount: 0,
        version: 1,
        ...(spec.completed ? { result: { success: true, output: spec.completed, toolCalls: [], usage: emptyUsage(), modelCalls: 1, durationMs: 0 } } : {}),
      }),
    ),
    status: 'executing',
    version: 1,
    errors: [],
    createdAt: new Date('2026-01-28T18:30:00Z'),
  };
}

interface RunOptions {
  turns: ScriptedTurn[];
  /** What each replanning round answers, in order; a round beyond them is a test bug. */
  replans?: PlanningOutcome[];
  limits?: Partial<ExecutorDependencies['limits']>;
  budgetExhausted?: () => boolean;
  tracing?: Tracing;
  context?: OrchestratorContext;
  signal?: AbortSignal;
}

async function run(plan: ExecutionPlan, options: RunOptions) {
  const model = new ScriptedModel(options.turns);
  const world = createTestWorld();
  const registry: AgentRegistry = createAgentRegistry([...testAgents(world), mailAgent]);
  const base = makeDeps({ model, registry, world });
  const replanRequests: Array<Omit<PlanningRequest, 'signal' | 'turnSections'>> = [];
  const replans = [...(options.replans ?? [])];
  const deps: ExecutorDependencies = {
    registry,
    stepRunner: { model, models: base.models, clock: base.clock, logger: base.logger, maxIterations: 6 },
    store: base.store,
    clock: base.clock,
    logger: base.logger,
    limits: { stepTimeoutMs: 5_000, stepMaxRetries: 0, maxReplans: 3, maxPlanSteps: 10, parallelSteps: 1, ...options.limits },
    replan: async (request) => {
      replanRequests.push(request);
      const next = replans.shift();
      if (!next) throw new Error('test bug: an unexpected replanning round');
      return next;
    },
    totals: () => ({ modelCalls: model.calls.length, usage: emptyUsage() }),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.budgetExhausted ? { budgetExhausted: options.budgetExhausted } : {}),
  };
  const outcome: ExecutionOutcome = await executePlan(plan, options.context ?? makeContext(), 'English', options.signal ?? new AbortController().signal, deps);
  return { outcome, plan, model, replanRequests, store: base.store, logs: base.logs, remaining: replans.length };
}

const statuses = (plan: ExecutionPlan) => Object.fromEntries(plan.steps.map((step) => [step.id, step.status]));
/** The reason a replanning round was given (the text after "Reason: "). */
const reasonOf = (request: { replanning?: string | undefined }) => /Reason: (.*)\n/.exec(request.replanning ?? '')?.[1];
const stopHere: PlanningOutcome = { kind: 'direct', reply: 'Here is what I could do.' };
const revision = (...steps: Array<{ id: string; agent: string; task: string }>): PlanningOutcome => ({
  kind: 'plan',
  plan: { analysis: 'revised', goal: 'test goal', steps: steps.map((revised) => ({ ...revised, dependsOn: [] })) },
});
const budgetNote = (error: string) => `Stopped early: ${error}. Say what was done and that the rest was not.`;
const STUCK_NOTE = 'Stopped: a step could not be carried out. Say what was done and that the rest was not.';

describe('a step that asks the user something', () => {
  it('asks only with needsClarification and a question; several questions are joined by a newline, in plan order', async () => {
    const { outcome, plan, replanRequests } = await run(
      planOf([
        { id: 'trip', agent: 'lookup-agent' },
        { id: 'hotel', agent: 'lookup-agent' },
        { id: 'book', agent: 'notes-agent', dependsOn: ['trip'] },
      ]),
      {
        turns: [
          complete({ summary: 'Two trips', needsClarification: true, question: 'Which Lisbon trip?' }),
          complete({ summary: 'Two hotels', needsClarification: true, question: 'Which hotel?' }),
        ],
      },
    );

    expect(outcome).toEqual({ plan, question: 'Which Lisbon trip?\nWhich hotel?' });
    expect(plan.status).toBe('needs_clarification');
    // The asking step's dependent cannot run without the answer.
    expect(statuses(plan)).toEqual({ trip: 'completed', hotel: 'completed', book: 'skipped' });
    expect(replanRequests).toEqual([]);
  });

  it('a question without needsClarification, or needsClarification without a question, asks nothing: the plan carries on', async () => {
    const { outcome, plan, model } = await run(
      planOf([
        { id: 'a', agent: 'lookup-agent' },
        { id: 'b', agent: 'lookup-agent' },
        { id: 'c', agent: 'notes-agent', dependsOn: ['a', 'b'] },
      ]),
      {
        turns: [
          complete({ summary: 'Found the trip', question: 'Anything else?' }),
          complete({ summary: 'Found the hotel', needsClarification: true }),
          complete({ summary: 'Noted both' }),
        ],
      },
    );

    expect(outcome).toEqual({ plan });
    expect(plan.status).toBe('completed');
    expect(statuses(plan)).toEqual({ a: 'completed', b: 'completed', c: 'completed' });
    expect(callsFor(model, 'notes-agent')).toHaveLength(1);
  });
});

describe('a step that found nothing, or says the plan cannot work', () => {
  it('an empty result with a pending dependent is a replan, naming the step; the dependent waits for the revision', async () => {
    const { outcome, plan, replanRequests } = await run(planOf([{ id: 'find', agent: 'lookup-agent' }, { id: 'note', agent: 'notes-agent', dependsOn: ['find'] }]), {
      turns: [complete({ summary: 'Nothing found', isEmpty: true })],
      replans: [stopHere],
    });

    expect(replanRequests.map(reasonOf)).toEqual(['step find found nothing, and later steps needed its result']);
    expect(outcome.replannerReply).toBe('Here is what I could do.');
    expect(statuses(plan)).toEqual({ find: 'completed', note: 'skipped' });
  });

  it('an empty result nobody waits for is no replan: a step without dependents, or whose dependent was already skipped', async () => {
    const alone = await run(planOf([{ id: 'find', agent: 'lookup-agent' }]), { turns: [complete({ summary: 'Nothing found', isEmpty: true })] });
    expect(alone.outcome).toEqual({ plan: alone.plan });
    expect(alone.plan.status).toBe('completed');
    expect(alone.replanRequests).toEqual([]);

    // `late` needs `broken` and `empty`; `broken` fails first, so `late` is skipped before `empty` finishes.
    const skippedFirst = await run(
      planOf([
        { id: 'broken', agent: 'lookup-agent' },
        { id: 'empty', agent: 'lookup-agent' },
        { id: 'late', agent: 'notes-agent', dependsOn: ['broken', 'empty'] },
      ]),
      { turns: [outage('lookup down'), complete({ summary: 'Nothing found', isEmpty: true })], replans: [stopHere] },
    );
    expect(skippedFirst.replanRequests.map(reasonOf)).toEqual(['step broken failed after 1 attempt(s): ModelError: lookup down']);
  });

  it('needsReplan is a replan with the step’s reason, or “no reason given”', async () => {
    const withReason = await run(planOf([{ id: 'plan_it', agent: 'lookup-agent' }]), {
      turns: [complete({ summary: 'Cannot', needsReplan: true, replanReason: 'the train was cancelled' })],
      replans: [stopHere],
    });
    expect(withReason.replanRequests.map(reasonOf)).toEqual(['step plan_it reported the plan cannot work: the train was cancelled']);

    const without = await run(planOf([{ id: 'plan_it', agent: 'lookup-agent' }]), { turns: [complete({ summary: 'Cannot', needsReplan: true })], replans: [stopHere] });
    expect(without.replanRequests.map(reasonOf)).toEqual(['step plan_it reported the plan cannot work: no reason given']);
  });

  it('at the replan limit an empty result changes nothing: its dependents still run and the plan completes', async () => {
    const { outcome, plan, replanRequests, logs } = await run(planOf([{ id: 'find', agent: 'lookup-agent' }, { id: 'note', agent: 'notes-agent', dependsOn: ['find'] }]), {
      turns: [complete({ summary: 'Nothing found', isEmpty: true }), complete({ summary: 'Noted that nothing was found' })],
      limits: { maxReplans: 0 },
    });

    expect(outcome).toEqual({ plan });
    expect(plan.status).toBe('completed');
    expect(statuses(plan)).toEqual({ find: 'completed', note: 'completed' });
    expect(replanRequests).toEqual([]);
    // The operator can see a replan was wanted and refused.
    expect(logs.lines.filter((line) => line.msg === 'replan needed but not allowed').map((line) => [line.stepId, line.limit])).toEqual([['find', 'the replan limit (0)']]);
  });
});

describe('a failed step', () => {
  it('is recorded with its error; two failures of one wave are one replan, their reasons joined by "; "', async () => {
    const { plan, replanRequests } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }, { id: 'b', agent: 'lookup-agent' }]), {
      turns: [outage('first down'), outage('second down')],
      replans: [stopHere],
    });

    expect(plan.errors).toEqual([
      { stepId: 'a', error: 'ModelError: first down' },
      { stepId: 'b', error: 'ModelError: second down' },
    ]);
    expect(replanRequests.map(reasonOf)).toEqual(['step a failed after 1 attempt(s): ModelError: first down; step b failed after 1 attempt(s): ModelError: second down']);
  });

  it('at the replan limit ends the plan failed, with the limit in the note', async () => {
    const { outcome, plan } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }, { id: 'b', agent: 'notes-agent', dependsOn: ['a'] }]), {
      turns: [outage()],
      limits: { maxReplans: 0 },
    });

    expect(outcome).toEqual({ plan, note: 'Stopped: the replan limit (0) was reached.' });
    expect(plan.status).toBe('failed');
    expect(statuses(plan)).toEqual({ a: 'failed', b: 'skipped' });
  });

  it('the step limit counts the steps a replan added: a failure in the revision then ends the plan', async () => {
    const { outcome, plan, replanRequests, remaining } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }]), {
      turns: [outage(), outage(), complete({ summary: 'Found it another way' })],
      replans: [
        revision({ id: 'r1', agent: 'lookup-agent', task: 'Look it up in the archive' }, { id: 'r2', agent: 'lookup-agent', task: 'Look it up elsewhere' }),
        stopHere,
      ],
      limits: { maxPlanSteps: 3, maxReplans: 5 },
    });

    expect(replanRequests.map((request) => request.stepsAllowed)).toEqual([2]);
    expect(remaining).toBe(1);
    expect(outcome).toEqual({ plan, note: 'Stopped: the step limit (3) was reached.' });
    expect(plan.status).toBe('failed');
    expect(statuses(plan)).toEqual({ a: 'failed', r1_v2: 'failed', r2_v2: 'completed' });
  });

  it('a budget failure stops the plan: no other step starts, no retry, no replan, and the note quotes the error', async () => {
    const { outcome, plan, model, replanRequests } = await run(
      planOf([
        { id: 'a', agent: 'lookup-agent' },
        { id: 'b', agent: 'notes-agent' },
      ]),
      { turns: [{ error: new TurnBudgetExceeded('the turn reached its limit of 12 model calls') }, complete({ summary: 'never' })], limits: { stepMaxRetries: 2 } },
    );

    expect(outcome).toEqual({ plan, note: budgetNote('TurnBudgetExceeded: the turn reached its limit of 12 model calls') });
    expect(plan.status).toBe('failed');
    expect(statuses(plan)).toEqual({ a: 'failed', b: 'skipped' });
    expect(model.calls).toHaveLength(1);
    expect(replanRequests).toEqual([]);
  });

  it('a stuck step (the same invalid input twice) ends only its branch: the others run, then the plan fails with its note', async () => {
    const { outcome, plan, model, replanRequests, logs } = await run(
      planOf([
        { id: 'a', agent: 'notes-agent' },
        { id: 'b', agent: 'lookup-agent' },
        { id: 'c', agent: 'general-agent', dependsOn: ['a'] },
      ]),
      { turns: [callTool('add_note', { text: '' }), callTool('add_note', { text: '' }), complete({ summary: 'Looked it up' })], limits: { stepMaxRetries: 2 } },
    );

    expect(plan.steps[0]!.result?.errorKind).toBe('invalid_input');
    expect(outcome).toEqual({ plan, note: STUCK_NOTE });
    expect(plan.status).toBe('failed');
    expect(statuses(plan)).toEqual({ a: 'failed', b: 'completed', c: 'skipped' });
    expect(callsFor(model, 'notes-agent')).toHaveLength(2);
    expect(replanRequests).toEqual([]);
    expect(logs.lines.filter((line) => line.msg === 'step failure ends its branch without a replan').map((line) => [line.stepId, line.errorKind])).toEqual([['a', 'invalid_input']]);
    // Skipped steps are logged as such.
    expect(logs.lines.filter((line) => line.event === 'step_skipped').map((line) => line.stepId)).toEqual(['c']);
  });

  it('an agent no longer registered fails at once, without retries, as a model error', async () => {
    const { plan, store, replanRequests, logs } = await run(planOf([{ id: 'ghost', agent: 'ghost-agent' }]), { turns: [], replans: [stopHere], limits: { stepMaxRetries: 2 } });

    expect(plan.steps[0]!.result).toEqual({
      success: false,
      error: 'unknown agent "ghost-agent"',
      errorKind: 'model',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      modelCalls: 0,
      durationMs: 0,
    });
    expect(plan.errors).toEqual([{ stepId: 'ghost', error: 'unknown agent "ghost-agent"' }]);
    expect(storeTrail(store).filter((entry) => entry.startsWith('step_'))).toEqual(['step_started ghost#0', 'step_finished ghost#0 failed']);
    expect(replanRequests).toHaveLength(1);
    expect(logs.lines.find((line) => line.event === 'step_failed')).toMatchObject({ stepId: 'ghost', errorKind: 'model', modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 });
  });

  it('a retry is told the failed attempt made no tool calls', async () => {
    const { plan, model } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }]), { turns: [outage(), complete({ summary: 'Found' })], limits: { stepMaxRetries: 1 } });

    expect(plan.status).toBe('completed');
    const retry = callsFor(model, 'lookup-agent')[1]!;
    expect(JSON.stringify(retry.messages)).toContain('Attempt 1 failed: ModelError: scripted outage\\nTool calls made: none.');
  });
});

describe('the turn’s model budget and the plan’s time', () => {
  it('once the budget is spent no further step starts, and the plan fails with the budget note', async () => {
    let spent = false;
    const { outcome, plan, model } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }, { id: 'b', agent: 'lookup-agent' }]), {
      turns: [
        when(() => {
          spent = true;
        }, complete({ summary: 'Found a' })),
      ],
      budgetExhausted: () => spent,
    });

    expect(outcome).toEqual({ plan, note: budgetNote('the model budget for this message was used up') });
    expect(plan.status).toBe('failed');
    expect(statuses(plan)).toEqual({ a: 'completed', b: 'skipped' });
    expect(model.calls).toHaveLength(1);
  });

  it('a budget not spent lets every step run', async () => {
    const { outcome, plan } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }, { id: 'b', agent: 'lookup-agent' }]), {
      turns: [complete({ summary: 'Found a' }), complete({ summary: 'Found b' })],
      budgetExhausted: () => false,
    });

    expect(outcome).toEqual({ plan });
    expect(statuses(plan)).toEqual({ a: 'completed', b: 'completed' });
  });

  it('when the plan’s time runs out the running step is cut off, the rest is skipped, and the note says so', async () => {
    const time = new AbortController();
    const { outcome, plan, replanRequests } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }, { id: 'b', agent: 'notes-agent', dependsOn: ['a'] }, { id: 'c', agent: 'notes-agent' }]), {
      turns: [
        () => {
          time.abort(new Error('the plan took too long'));
          return { delayMs: 30_000, then: complete({ summary: 'too late' }) };
        },
      ],
      signal: time.signal,
    });

    expect(outcome).toEqual({ plan, note: 'Time ran out before everything was done.' });
    expect(plan.status).toBe('timed_out');
    expect(statuses(plan)).toEqual({ a: 'failed', b: 'skipped', c: 'skipped' });
    expect(replanRequests).toEqual([]);
  });
});

describe('what a step is handed', () => {
  const photo = { id: 'a1', kind: 'photo' as const, mediaType: 'image/png' as const, data: 'UE5H', label: 'photo' };
  const pdf = { id: 'a2', kind: 'pdf' as const, mediaType: 'application/pdf' as const, data: 'JVBERi0=', label: 'PDF (1 page)' };
  const blocksOf = (request: ModelRequest) => {
    const content = request.messages[0]!.content;
    return typeof content === 'string' ? [] : content.filter((block) => block.type !== 'text' || block.text.startsWith('Attachment')).map((block) => (block.type === 'text' ? block.text : block.type));
  };

  it('only the attachments it names; none when it names none or the message has none', async () => {
    const base = makeContext({ text: 'read the pdf' });
    const withMedia: OrchestratorContext = { ...base, message: { ...base.message, attachments: 2, media: [photo, pdf] } };
    const { model } = await run(
      planOf([
        { id: 'reads', agent: 'general-agent', task: 'Read the PDF', attachments: ['a2'] },
        { id: 'plain', agent: 'general-agent', task: 'Say hello' },
        { id: 'missing', agent: 'general-agent', task: 'Read a9', attachments: ['a9'] },
      ]),
      { turns: [complete({ summary: 'Read it' }), complete({ summary: 'Hello' }), complete({ summary: 'Nothing to read' })], context: withMedia },
    );
    expect(callsFor(model, 'general-agent').map(blocksOf)).toEqual([['Attachment a2 (PDF (1 page)):', 'document'], [], []]);

    const noMedia = await run(planOf([{ id: 'reads', agent: 'general-agent', task: 'Read the PDF', attachments: ['a2'] }]), { turns: [complete({ summary: 'Nothing attached' })] });
    expect(noMedia.plan.status).toBe('completed');
    expect(typeof callsFor(noMedia.model, 'general-agent')[0]!.messages[0]!.content).toBe('string');
  });
});

describe('outside (untrusted) text, as a replan is told', () => {
  it('is seen when a completed step’s agent has untrusted output, among others', async () => {
    const { replanRequests } = await run(
      planOf([
        { id: 'answer', agent: 'general-agent' },
        { id: 'mail', agent: 'mail-agent' },
        { id: 'broken', agent: 'lookup-agent' },
      ]),
      { turns: [complete({ summary: 'Answered' }), complete({ summary: 'Sam wrote about Friday' }), outage()], replans: [stopHere] },
    );
    expect(replanRequests.map((request) => request.untrustedTextSeen)).toEqual([true]);
  });

  it('is not seen when only trusted agents completed, or a kept step’s agent is no longer registered, or the untrusted step failed', async () => {
    const trusted = await run(planOf([{ id: 'answer', agent: 'general-agent' }, { id: 'broken', agent: 'lookup-agent' }]), { turns: [complete({ summary: 'Answered' }), outage()], replans: [stopHere] });
    expect(trusted.replanRequests.map((request) => request.untrustedTextSeen)).toEqual([false]);

    const retired = await run(planOf([{ id: 'kept', agent: 'retired-agent', completed: { summary: 'Done before' } }, { id: 'broken', agent: 'lookup-agent' }]), { turns: [outage()], replans: [stopHere] });
    expect(retired.replanRequests.map((request) => request.untrustedTextSeen)).toEqual([false]);

    const failedMail = await run(planOf([{ id: 'mail', agent: 'mail-agent' }]), { turns: [outage()], replans: [stopHere] });
    expect(failedMail.replanRequests.map((request) => request.untrustedTextSeen)).toEqual([false]);
  });
});

describe('what operators see', () => {
  it('a span per attempt with the step, agent and attempt, and what came of it; each start logged as running', async () => {
    const spans: Array<{ name: string; attributes: SpanAttributes | undefined; set: SpanAttributes }> = [];
    const tracing: Tracing = {
      enabled: true,
      span: (name, options, work) => {
        const recorded = { name, attributes: options.attributes, set: {} as SpanAttributes };
        spans.push(recorded);
        return work({ setAttributes: (attributes) => Object.assign(recorded.set, attributes), fail() {}, traceparent: undefined });
      },
      record() {},
      currentTraceparent: () => undefined,
      async shutdown() {},
    };
    const { logs } = await run(planOf([{ id: 'a', agent: 'lookup-agent' }]), { turns: [outage(), complete({ summary: 'Found' })], limits: { stepMaxRetries: 1 }, tracing });

    expect(spans).toEqual([
      { name: 'herald.step', attributes: { 'herald.step.id': 'a', 'gen_ai.agent.name': 'lookup-agent', 'herald.step.attempt': 0 }, set: { 'herald.step.success': false, 'herald.step.error_kind': 'model', 'herald.step.model_calls': 1 } },
      { name: 'herald.step', attributes: { 'herald.step.id': 'a', 'gen_ai.agent.name': 'lookup-agent', 'herald.step.attempt': 1 }, set: { 'herald.step.success': true, 'herald.step.error_kind': undefined, 'herald.step.model_calls': 1 } },
    ]);
    expect(logs.lines.filter((line) => line.event === 'step_started').map((line) => [line.retryCount, line.status])).toEqual([
      [0, 'running'],
      [1, 'running'],
    ]);
  });
});
