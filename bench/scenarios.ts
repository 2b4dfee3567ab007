/**
 * Scenario benchmark (issue 3): a fixed set of conversations through the REAL orchestrator
 * (planner, executor, sub-agents with their real tools on Postgres, PlanRun/StepRun rows)
 * against a scripted model that answers after a fixed latency. Per scenario it prints the
 * model calls, input and output tokens, wall time, and the orchestrator's own overhead
 * (wall time minus time spent waiting for the model), and compares the calls with seed
 * 000's literal flow: plan + one tool loop (two calls: act, then report) per step attempt
 * + compose.
 */
import { performance } from 'node:perf_hooks';
import { createAgentRegistry } from '../src/agents/agent-registry.js';
import { generalAgent } from '../src/agents/general/general-agent.js';
import { memoryAgent } from '../src/agents/memory/memory-agent.js';
import type { OrchestratorContext } from '../src/context/orchestrator-context.js';
import { connectDatabase } from '../src/db/database.js';
import { FactService } from '../src/memory/fact-service.js';
import type { ModelClient, ModelRequest, ModelResponse } from '../src/model/model-client.js';
import { ScriptedModel, type ScriptedTurn } from '../src/model/scripted-model.js';
import { orchestrate, type OrchestratorDependencies } from '../src/orchestrator/orchestrate.js';
import { PrismaPlanStore } from '../src/orchestrator/plan-store.js';
import { systemClock } from '../src/shared/clock.js';
import { randomIds } from '../src/shared/ids.js';
import type { Benchmark } from './support/benchmark.js';
import { banner, ms, percentile, table } from './support/report.js';

const MODEL_LATENCY_MS = 50;
const REPETITIONS = 20;
const OVERHEAD_TARGET_MS = 20;

/** A model that waits a fixed time per call (as a network model would), then answers from the script. */
class LatencyModel implements ModelClient {
  waitedMs = 0;
  constructor(private readonly inner: ModelClient) {}
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MODEL_LATENCY_MS));
    const response = await this.inner.generate(request);
    this.waitedMs += performance.now() - started;
    return response;
  }
}

interface Scenario {
  name: string;
  message: string;
  script: () => ScriptedTurn[];
  /** Seed 000's literal flow for the same conversation. */
  literalCalls: number;
}

const plan = (task: string): ScriptedTurn => ({
  toolCalls: [{ name: 'create_plan', input: { analysis: 'memory write', goal: 'Remember what the user said', steps: [{ id: 'step_1', agent: 'memory-agent', task }] } }],
});

const scenarios: Scenario[] = [
  { name: 'greeting', message: 'hi!', script: () => [{ text: 'Hi! What can I do for you?' }], literalCalls: 2 },
  {
    name: 'question about memory',
    message: 'what do you know about me?',
    script: () => [{ text: "You're vegetarian and your sister is Dana." }],
    // plan + a memory-agent search step (act, report) + compose
    literalCalls: 4,
  },
  {
    name: 'remember one fact',
    message: "remember that I don't like early meetings",
    script: () => [
      plan('Save: the user does not like early meetings (subject "meetings").'),
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'preferences', subject: 'meetings', content: 'Does not like early meetings' } },
          { name: 'complete_step', input: { summary: 'Saved', reply: "Noted: no early meetings.", created: [{ description: 'Does not like early meetings' }] } },
        ],
      },
    ],
    literalCalls: 4,
  },
  {
    name: 'remember two facts',
    message: "remember that I'm vegetarian and that my sister is Dana",
    script: () => [
      plan('Save two facts: vegetarian (subject "diet"); sister is Dana (subject "sister").'),
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'preferences', subject: 'diet', content: 'Is vegetarian' } },
          { name: 'remember_fact', input: { category: 'relationships', subject: 'sister', content: "Sister's name is Dana" } },
          { name: 'complete_step', input: { summary: 'Saved two facts', reply: "Got it: vegetarian, and your sister is Dana.", created: [{ description: 'Is vegetarian' }, { description: 'Sister is Dana' }] } },
        ],
      },
    ],
    literalCalls: 4,
  },
  {
    name: 'failing step that replans',
    message: 'remember my gym is on 5th street',
    script: () => {
      // Three attempts claim a creation without performing it (verification fails each time),
      // then the replanner routes around it and a new step succeeds; the composer explains.
      const falseClaim: ScriptedTurn = { toolCalls: [{ name: 'complete_step', input: { summary: 'Saved', created: [{ description: 'Gym on 5th street' }] } }] };
      return [
        plan('Save: the user\'s gym is on 5th street (subject "gym").'),
        falseClaim,
        falseClaim,
        falseClaim,
        plan('Save the fact "Goes to the gym on 5th street" (subject "gym"), calling remember_fact.'),
        {
          toolCalls: [
            { name: 'remember_fact', input: { category: 'routine', subject: 'gym', content: 'Goes to the gym on 5th street' } },
            { name: 'complete_step', input: { summary: 'Saved', created: [{ description: 'Gym on 5th street' }] } },
          ],
        },
        { text: "Saved: your gym is on 5th street." },
      ];
    },
    // plan + 3 attempts × (act, report) + replan + new step (act, report) + compose
    literalCalls: 1 + 3 * 2 + 1 + 2 + 1,
  },
];

export const scenariosBenchmark: Benchmark = {
  name: 'scenarios',
  description: `Orchestrator conversations against a scripted model with ${MODEL_LATENCY_MS} ms per call: calls, tokens, overhead`,
  async run({ postgres, logger, print }) {
    print(banner(`Orchestrator scenarios (scripted model, ${MODEL_LATENCY_MS} ms per call, ${REPETITIONS} runs each)`));
    const databaseInfo = await postgres.createMigratedDatabase('scenarios', logger);
    const database = connectDatabase(databaseInfo.url, 5);
    const rows: Array<Array<string | number>> = [];
    const checks = [];
    try {
      const facts = new FactService(database.prisma, database.pool, systemClock);
      const registry = createAgentRegistry([memoryAgent(facts), generalAgent]);
      for (const scenario of scenarios) {
        const walls: number[] = [];
        const overheads: number[] = [];
        let calls = 0;
        let inputTokens = 0;
        let outputTokens = 0;
        for (let run = 0; run < REPETITIONS + 2; run += 1) {
          const user = await database.prisma.user.create({ data: { phone: `+1415555${String(run).padStart(4, '0')}${scenarios.indexOf(scenario)}`.slice(0, 12), name: 'Ana', timezone: 'Europe/London', updatedAt: new Date() } });
          // Only the memory question needs something remembered; the others start empty.
          if (scenario.name === 'question about memory') await facts.remember(user.id, { category: 'preferences', subject: 'diet', content: 'Is vegetarian' });
          const turn = await database.prisma.turn.create({ data: { userId: user.id } });
          const model = new LatencyModel(new ScriptedModel(scenario.script()));
          const deps: OrchestratorDependencies = {
            model,
            models: { planner: 'bench-planner', agent: 'bench-agent', composer: 'bench-composer' },
            registry,
            store: new PrismaPlanStore(database.prisma),
            clock: systemClock,
            ids: randomIds,
            logger,
            limits: { planTimeoutMs: 120_000, stepTimeoutMs: 60_000, stepMaxRetries: 2, maxReplans: 3, maxPlanSteps: 10, progressAfterMs: 10_000, replyMaxTokens: 1024 },
          };
          const context: OrchestratorContext = {
            turnId: turn.id,
            user: { id: user.id, name: 'Ana', timezone: 'Europe/London', language: null, isNew: false },
            channel: 'sms',
            facts: (await facts.list(user.id)).map((fact) => ({ id: fact.id, category: fact.category, content: fact.content })),
            history: [],
            message: { text: scenario.message, messageIds: [turn.id], attachments: 0 },
          };
          const started = performance.now();
          const result = await orchestrate(context, deps);
          const wall = performance.now() - started;
          await database.prisma.user.delete({ where: { id: user.id } });
          if (result.status !== 'succeeded' && scenario.name !== 'failing step that replans') throw new Error(`${scenario.name}: ${result.failure?.message}`);
          if (run < 2) continue; // warm-up (JIT, prepared statements)
          walls.push(wall);
          overheads.push(wall - model.waitedMs);
          calls = result.modelCalls;
          inputTokens = result.usage.inputTokens;
          outputTokens = result.usage.outputTokens;
        }
        const overhead = median(overheads);
        rows.push([scenario.name, calls, scenario.literalCalls, inputTokens, outputTokens, ms(median(walls)), ms(overhead), ms(percentile(overheads, 0.95))]);
        checks.push({ name: `${scenario.name}: model calls`, target: `< ${scenario.literalCalls} (seed 000 literal flow)`, measured: String(calls), pass: calls < scenario.literalCalls, kind: 'target' as const });
        checks.push({ name: `${scenario.name}: orchestrator overhead (median)`, target: `< ${OVERHEAD_TARGET_MS} ms`, measured: `${ms(overhead)} ms`, pass: overhead < OVERHEAD_TARGET_MS, kind: 'target' as const });
        if (scenario.name === 'greeting') checks.push({ name: 'greeting: one model call', target: '= 1', measured: String(calls), pass: calls === 1, kind: 'target' as const });
      }
    } finally {
      await database.close();
    }
    print(table(['scenario', 'model calls', 'seed 000 literal', 'input tokens', 'output tokens', 'wall ms (median)', 'overhead ms (median)', 'overhead ms (p95)'], rows));
    print('overhead = wall time minus time waiting for the model (planning, validation, tools on Postgres, verification, PlanRun/StepRun writes)');
    return { checks };
  },
};

function median(values: number[]): number {
  return percentile(values, 0.5);
}
