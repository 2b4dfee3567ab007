/**
 * `npm run bench -- learning`: what background fact learning (src/learning) costs per active
 * user-day on the default models (the agent model, low effort) at their list prices, through
 * the fake Anthropic API (which reports usage from the real request's size, as the API does).
 *
 * A typical active user-day: three conversations, each of four messages of about 80
 * characters, each pass proposing two facts. Also measured: the largest pass there can be
 * (40 messages of 1,000 characters, 10 facts), and the same day for a user whose messages
 * say "remember nothing about this" (no call at all).
 */
import { BudgetGuard } from '../src/budgets/budget-guard.js';
import { loadConfig } from '../src/config/config.js';
import { connectDatabase } from '../src/db/database.js';
import { FactLearner } from '../src/learning/fact-learner.js';
import { FactService } from '../src/memory/fact-service.js';
import { AnthropicModel } from '../src/model/anthropic-model.js';
import { JobQueue } from '../src/queue/job-queue.js';
import { ManualClock } from '../src/shared/clock.js';
import { FakeAnthropicServer } from '../test/fakes/fake-anthropic-server.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, table } from './support/report.js';

const TARGET_USD = 0.0005;
const DELAY_MS = 120_000;
const SENTENCES = [
  "By the way I'm vegetarian, so no steak places please when you suggest dinner.",
  'My sister Dana lives in Haifa and we talk every Sunday evening on the phone.',
  "Work is crazy this week at Acme, I'm leading the design review on Thursday.",
  'Can you remind me to water the plants tomorrow morning before I leave home?',
];

function proposals(count: number) {
  return {
    toolCalls: [
      {
        name: 'save_learned_facts',
        input: { facts: Array.from({ length: count }, (_, index) => ({ category: 'preferences', subject: `thing ${index}`, content: `Likes thing number ${index} a lot`, message: 1 })) },
      },
    ],
  };
}

export const learningBenchmark: Benchmark = {
  name: 'learning',
  description: 'Background fact learning: cost per active user-day on the default models (target < $0.0005)',
  async run({ postgres, logger, print }) {
    print(banner('Background fact learning: cost per active user-day (default models, list prices)'));
    const databaseInfo = await postgres.createMigratedDatabase('learning', logger);
    const database = connectDatabase(databaseInfo.url, 5);
    const fake = await FakeAnthropicServer.start();
    const checks: Check[] = [];
    try {
      const config = loadConfig({ ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: fake.url, HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
      const clock = new ManualClock('2026-11-24T15:00:00Z');
      const learner = new FactLearner({
        prisma: database.prisma,
        facts: new FactService(database.prisma, database.pool, clock),
        model: new AnthropicModel({ apiKey: 'bench', baseUrl: fake.url, timeoutMs: 10_000, maxRetries: 0 }),
        role: config.models.agent,
        budgets: new BudgetGuard(database.prisma, clock, { userDailyUsd: 10, deploymentTimezone: 'UTC' }, logger),
        queue: new JobQueue(database.pool, logger),
        clock,
        logger,
        settings: { enabled: true, delayMs: DELAY_MS },
      });
      let phone = 0;
      /** One user's day: `conversations` passes over `messages` each, the model proposing `facts`; returns what it cost. */
      const day = async (conversations: number, messages: number, text: (index: number) => string, facts: number) => {
        phone += 1;
        const user = await database.prisma.user.create({ data: { phone: `+1415${String(6_000_000 + phone).padStart(7, '0')}`, timezone: 'UTC', updatedAt: new Date() } });
        for (let conversation = 0; conversation < conversations; conversation += 1) {
          for (let index = 0; index < messages; index += 1) {
            clock.advance(30_000);
            await database.prisma.message.create({ data: { userId: user.id, role: 'user', content: text(conversation * messages + index), channel: 'sms', tokenCount: 20, createdAt: clock.now() } });
          }
          clock.advance(DELAY_MS + 1_000);
          fake.enqueue(proposals(facts));
          await learner.learn(user.id);
          clock.advance(3 * 60 * 60 * 1000);
        }
        const { _sum } = await database.prisma.turn.aggregate({ _sum: { costUsd: true }, where: { userId: user.id } });
        fake.reset();
        return { usd: Number(_sum.costUsd ?? 0) };
      };
      const typical = await day(3, 4, (index) => SENTENCES[index % SENTENCES.length]!, 2);
      const largest = await day(1, 40, (index) => `${SENTENCES[index % SENTENCES.length]!} `.repeat(13).slice(0, 1_000), 10);
      const silent = await day(3, 4, () => 'Remember nothing about this: I am interviewing elsewhere.', 0);
      const rows = [
        ['typical active day (3 passes × 4 messages, 2 facts each)', `$${typical.usd.toFixed(6)}`],
        ['largest single pass (40 × 1,000 characters, 10 facts)', `$${largest.usd.toFixed(6)}`],
        ['a day of "remember nothing about this" (no call)', `$${silent.usd.toFixed(6)}`],
      ];
      print(table(['case', 'USD'], rows));
      print(`model: ${config.models.agent.name} (effort low); pass = at most one call per user per FACT_LEARNING_DELAY_MS`);
      checks.push({ name: 'learning cost per active user-day', target: `< $${TARGET_USD}`, measured: `$${typical.usd.toFixed(6)}`, pass: typical.usd < TARGET_USD, kind: 'target' });
      checks.push({ name: '"remember nothing about this" costs nothing', target: '$0', measured: `$${silent.usd.toFixed(6)}`, pass: silent.usd === 0, kind: 'correctness' });
    } finally {
      await fake.close();
      await database.close();
    }
    return { checks };
  },
};
