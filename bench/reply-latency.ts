/**
 * Reply time as a user feels it (issue 25): from the webhook to the reply handed to Twilio, for
 * plans of one, two and three independent steps (and two steps where one needs the other), with
 * the model answering as slowly as real ones do (support/model-timing.ts). A real Herald
 * (`createHerald`, production settings, workers running) on a fresh database, the real SDKs
 * against the local fakes; once with PLAN_PARALLEL_STEPS=1 (one step at a time) and once with
 * the default 3. Per scenario: p50 and p95 per mode, parallel against one step, and the share
 * of turns whose reply needed no composer call. Targets: two independent steps ≤ 1.2 × one
 * step, three ≤ 1.3 ×.
 */
import { DateTime } from 'luxon';
import twilio from 'twilio';
import { loadConfig } from '../src/config/config.js';
import { connectDatabase, type Database } from '../src/db/database.js';
import type { Logger } from '../src/logging/logger.js';
import { createHerald } from '../src/runtime.js';
import { FakeAnthropicServer, type RecordedAnthropicRequest, type ScriptedAnthropicResponse } from '../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import { composerRequest, plannerRequest } from '../test/helpers/model-script.js';
import type { BenchmarkContext, Check } from './support/benchmark.js';
import { answerDelayMs, modelTimings, outputTokensOf, type ModelTiming } from './support/model-timing.js';
import { heading, ms, percent, percentile, table } from './support/report.js';

const RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 8);
const PUBLIC_BASE_URL = 'https://herald.bench';
const ZONE = 'Europe/London';
const TWO_STEPS_TARGET = 1.2;
const THREE_STEPS_TARGET = 1.3;

/** Thinking as long as each role plausibly writes first (the planner at medium effort, agents at low). */
const PLANNER_THINKING =
  'The user wants things done. Which agents fit, and does any step need another one\'s result? Each task must be self-contained with the exact wording. Nothing to resolve, nothing to ask.';
const AGENT_THINKING = 'Call the tool with the exact content, then report what was done.';

type Answer = { text: string } | { toolCalls: Array<{ name: string; input: unknown }> };

/** One part of a request: the step the planner makes of it, and how its agent answers (one call: the tool and the report). */
interface Part {
  agent: string;
  task: string;
  dependsOn?: string[];
  calls: () => Array<{ name: string; input: unknown }>;
  reply: string;
}

interface LatencyScenario {
  name: string;
  message: string;
  parts: Part[];
  /** The composer's reply, when the plan needs one. */
  composed?: string;
}

const tomorrowAt = (hour: number) => DateTime.now().setZone(ZONE).plus({ days: 1 }).set({ hour, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm");
const fact: Part = { agent: 'memory-agent', task: 'Save: the user is vegetarian (subject "diet").', calls: () => [{ name: 'remember_fact', input: { category: 'preferences', subject: 'diet', content: 'Is vegetarian' } }], reply: "Noted: you're vegetarian." };
const shopping: Part = { agent: 'list-agent', task: 'Add "tofu" and "rice" to the shopping list.', calls: () => [{ name: 'add_list_items', input: { list: 'shopping', items: ['tofu', 'rice'] } }], reply: 'Tofu and rice are on your shopping list.' };
const reminder: Part = { agent: 'scheduler-agent', task: 'Remind the user to call mom tomorrow at 17:00.', calls: () => [{ name: 'create_scheduled_job', input: { text: 'Call mom', at: tomorrowAt(17) } }], reply: "I'll remind you to call mom tomorrow at 5 PM." };

const scenarios: LatencyScenario[] = [
  { name: 'one step', message: "remember I'm vegetarian", parts: [fact] },
  { name: 'two independent steps', message: "remember I'm vegetarian and add tofu and rice to my shopping list", parts: [fact, shopping] },
  { name: 'three independent steps', message: "remember I'm vegetarian, add tofu and rice to my list, and remind me to call mom tomorrow at 5", parts: [fact, shopping, reminder] },
  {
    name: 'two steps, one needing the other',
    message: 'look at my shopping list and remember what is on it',
    parts: [
      { agent: 'list-agent', task: "Get the user's shopping list.", calls: () => [{ name: 'get_lists', input: {} }], reply: '' },
      { agent: 'memory-agent', task: 'Save what the shopping list holds (subject "shopping").', dependsOn: ['step_1'], calls: () => [{ name: 'remember_fact', input: { category: 'other', subject: 'shopping', content: 'Shopping list: tofu, rice' } }], reply: '' },
    ],
    composed: 'Your shopping list has tofu and rice; I noted that.',
  },
];

type Scripted = { answer: Answer; thinking: string };

/** The planner's plan for a scenario. */
function planAnswer(scenario: LatencyScenario): Scripted {
  const steps = scenario.parts.map((part, index) => ({ id: `step_${index + 1}`, agent: part.agent, task: part.task, dependsOn: part.dependsOn ?? [] }));
  return { answer: { toolCalls: [{ name: 'create_plan', input: { analysis: 'Needs agents', goal: 'Do what the user asked', steps } }] }, thinking: PLANNER_THINKING };
}

/** A step's one answer: its tool calls and its report (with its part of the reply when asked for one). */
function partAnswer(part: Part, writesReply: boolean): Scripted {
  const report = { summary: part.reply || `Did: ${part.task}`, ...(part.reply && writesReply ? { reply: part.reply } : {}) };
  return { answer: { toolCalls: [...part.calls(), { name: 'complete_step', input: report }] }, thinking: AGENT_THINKING };
}

/** What the model answers, by who asks: the planner by the message, an agent by its task, the composer. */
function answerFor(request: RecordedAnthropicRequest, plannedBy: Map<string, string>): Scripted {
  if (plannerRequest(request)) {
    // The longest message the request holds: one scenario's message begins another's.
    const scenario = scenarios.filter((candidate) => request.lastUserText().includes(candidate.message)).sort((left, right) => right.message.length - left.message.length)[0];
    if (!scenario) throw new Error(`no scenario for "${request.lastUserText().slice(0, 80)}"`);
    // Which model planned it (the light planner or the planner), for the model floor.
    plannedBy.set(scenario.name, String(request.body.model));
    return planAnswer(scenario);
  }
  if (composerRequest(request)) {
    const scenario = scenarios.find((candidate) => candidate.composed && request.lastUserText().includes(candidate.message));
    return { answer: { text: scenario?.composed ?? 'Done.' }, thinking: AGENT_THINKING };
  }
  const part = scenarios.flatMap((scenario) => scenario.parts).find((candidate) => request.lastUserText().includes(candidate.task));
  if (!part) throw new Error('no part for an agent request');
  return partAnswer(part, request.lastUserText().includes('<reply>'));
}

/** How long `model` takes to write a scripted answer. */
const delayOf = (timings: Record<string, ModelTiming>, model: string, scripted: Scripted) => answerDelayMs(timings, model, outputTokensOf({ ...scripted.answer, thinking: scripted.thinking }));

/** The fake's answer after as long as the model would take to write it. */
function timedAnswer(timings: Record<string, ModelTiming>, plannedBy: Map<string, string>): (request: RecordedAnthropicRequest) => ScriptedAnthropicResponse {
  return (request) => {
    const scripted = answerFor(request, plannedBy);
    return { delayMs: delayOf(timings, String(request.body.model), scripted), then: { ...scripted.answer, thinking: scripted.thinking } };
  };
}

/**
 * The model's own time on a turn's critical path (no Herald, no network): the plan, then the
 * steps (the longest of them when they run at once, all of them otherwise), then the composer
 * if the reply needs one. What the reply time cannot go below.
 */
function modelFloorMs(scenario: LatencyScenario, atOnce: boolean, timings: Record<string, ModelTiming>, models: { planner: string; agent: string; composer: string }): number {
  const independent = scenario.parts.every((part) => !part.dependsOn?.length);
  const steps = scenario.parts.map((part) => delayOf(timings, models.agent, partAnswer(part, !scenario.composed)));
  const composer = scenario.composed ? delayOf(timings, models.composer, { answer: { text: scenario.composed }, thinking: AGENT_THINKING }) : 0;
  return delayOf(timings, models.planner, planAnswer(scenario)) + (atOnce && independent ? Math.max(...steps) : steps.reduce((sum, ms) => sum + ms, 0)) + composer;
}

interface Measured {
  p50: number;
  p95: number;
  /** Turns whose reply needed no composer call. */
  withoutComposer: number;
}

/** Runs every scenario RUNS times at once (a user each) on a Herald with `parallelSteps`. */
async function measureMode(database: Database, url: string, fakes: { twilio: FakeTwilioServer; anthropic: FakeAnthropicServer }, parallelSteps: number, logger: Logger, users: { next: number }) {
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL,
    ACCESS_MODE: 'open',
    NEW_USERS_PER_HOUR: '100000',
    TWILIO_ACCOUNT_SID: fakes.twilio.accountSid,
    TWILIO_AUTH_TOKEN: fakes.twilio.authToken,
    TWILIO_SMS_FROM: '+15005550006',
    TWILIO_API_BASE_URL: fakes.twilio.url,
    ANTHROPIC_API_KEY: 'bench-key',
    ANTHROPIC_BASE_URL: fakes.anthropic.url,
    ANTHROPIC_MAX_RETRIES: '0',
    HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 11).toString('base64'),
    DATABASE_URL: url,
    DEFAULT_TIMEZONE: ZONE,
    PLAN_PARALLEL_STEPS: String(parallelSteps),
    // No "on it" message: the stopwatch stops at the reply.
    PROGRESS_AFTER_MS: '600000',
  });
  const herald = await createHerald({ config, logger, database, recoveryIntervalMs: 0, pollingIntervalSeconds: 0.5 });
  await herald.start();
  const results = new Map<string, Measured>();
  const failures: string[] = [];
  try {
    const turn = async (scenario: LatencyScenario): Promise<number> => {
      users.next += 1;
      const phone = `+1212${String(7_000_000 + users.next).padStart(7, '0')}`;
      const form = { MessageSid: `SM${String(users.next).padStart(32, '0')}`, AccountSid: fakes.twilio.accountSid, From: phone, To: '+15005550006', Body: scenario.message, NumMedia: '0' };
      const signature = twilio.getExpectedTwilioSignature(fakes.twilio.authToken, `${PUBLIC_BASE_URL}/twilio/messages`, form);
      const sentAt = Date.now();
      const response = await herald.app.inject({ method: 'POST', url: '/twilio/messages', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, payload: new URLSearchParams(form).toString() });
      if (response.statusCode !== 200) throw new Error(`the webhook answered ${response.statusCode}`);
      for (;;) {
        const reply = fakes.twilio.messages.find((message) => message.to === phone);
        if (reply) {
          const expected = scenario.composed ?? scenario.parts.map((part) => part.reply).join('\n');
          if (reply.body !== expected) failures.push(`${scenario.name}: replied "${reply.body}"`);
          return reply.dateCreated.getTime() - sentAt;
        }
        await fakes.twilio.waitForMessages(fakes.twilio.messages.length + 1, 120_000);
      }
    };
    // Warm-up: each scenario once (JIT, prepared statements), not counted.
    for (const scenario of scenarios) await turn(scenario);
    for (const scenario of scenarios) {
      const before = fakes.anthropic.requests.length;
      const times = await Promise.all(Array.from({ length: RUNS }, () => turn(scenario)));
      // A turn makes at most one composer call; these turns' are the batch's calls about its message.
      const composed = fakes.anthropic.requests.slice(before).filter((request) => composerRequest(request) && request.lastUserText().includes(scenario.message)).length;
      results.set(scenario.name, { p50: percentile(times, 0.5), p95: percentile(times, 0.95), withoutComposer: 1 - composed / RUNS });
    }
  } finally {
    await herald.stop(2000).catch(() => {});
  }
  return { results, failures };
}

/** The reply-time section of the scenarios benchmark: prints its table and returns its checks. */
export async function replyLatency({ postgres, logger, print }: Pick<BenchmarkContext, 'postgres' | 'logger' | 'print'>): Promise<Check[]> {
  const timings = modelTimings();
  // The default models per role, as the benchmarked Herald runs them.
  const config = loadConfig({ ANTHROPIC_API_KEY: 'bench' });
  print(heading(`Reply time as a user feels it: webhook to reply handed to Twilio, ${RUNS} users at once per scenario`));
  print(`model timing: ${Object.entries(timings).map(([model, timing]) => `${model} ${timing.firstTokenMs} ms to first token, ${timing.outputTokensPerSecond} tokens/s`).join('; ')} (support/model-timing.ts; BENCH_MODEL_TIMING)`);
  const info = await postgres.createMigratedDatabase('latency', logger);
  const database = connectDatabase(info.url, 10);
  const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  const plannedBy = new Map<string, string>();
  fakeAnthropic.setFallback(timedAnswer(timings, plannedBy));
  const users = { next: 0 };
  const checks: Check[] = [];
  try {
    const sequential = await measureMode(database, info.url, { twilio: fakeTwilio, anthropic: fakeAnthropic }, 1, logger, users);
    const parallel = await measureMode(database, info.url, { twilio: fakeTwilio, anthropic: fakeAnthropic }, 3, logger, users);
    const failures = [...sequential.failures, ...parallel.failures];
    checks.push({ name: 'reply time: every turn got its expected reply', target: 'all', measured: failures.length === 0 ? 'all' : failures.slice(0, 3).join('; '), pass: failures.length === 0, kind: 'correctness' });
    const one = parallel.results.get('one step')!.p50;
    const models = (scenario: LatencyScenario) => ({ planner: plannedBy.get(scenario.name) ?? config.models.planner.name, agent: config.models.agent.name, composer: config.models.composer.name });
    const oneFloor = modelFloorMs(scenarios[0]!, true, timings, models(scenarios[0]!));
    const rows = scenarios.map((scenario) => {
      const seq = sequential.results.get(scenario.name)!;
      const par = parallel.results.get(scenario.name)!;
      const floor = modelFloorMs(scenario, true, timings, models(scenario));
      return [scenario.name, plannedBy.get(scenario.name) ?? '-', scenario.parts.length, ms(seq.p50), ms(seq.p95), ms(par.p50), ms(par.p95), `${(par.p50 / one).toFixed(2)}×`, ms(floor), `${(floor / oneFloor).toFixed(2)}×`, percent(seq.withoutComposer), percent(par.withoutComposer)];
    });
    print(table(['scenario', 'planned by', 'steps', 'one at a time p50 ms', 'p95', 'at once p50 ms', 'p95', 'at once / one step', 'model floor ms', 'floor / one step', 'no composer (one at a time)', 'no composer (at once)'], rows));
    print('model floor = the model\'s own time on the critical path at once (plan, longest step, composer if any): a longer plan takes the planner longer to write');
    for (const [name, target] of [['two independent steps', TWO_STEPS_TARGET], ['three independent steps', THREE_STEPS_TARGET]] as const) {
      const ratio = parallel.results.get(name)!.p50 / one;
      checks.push({ name: `reply time: ${name} vs one step (p50, steps at once)`, target: `≤ ${target}×`, measured: `${ratio.toFixed(2)}× (one at a time ${(sequential.results.get(name)!.p50 / sequential.results.get('one step')!.p50).toFixed(2)}×)`, pass: ratio <= target, kind: 'target' });
    }
  } finally {
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
    await database.close();
  }
  return checks;
}
