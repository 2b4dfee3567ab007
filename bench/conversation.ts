/**
 * Conversation benchmark (issue 19): the answers that need no model, end to end. A real
 * Herald (`createHerald`, production settings, workers running) on a fresh database, the
 * real Twilio and Anthropic SDKs against the local fakes; each run is a signed webhook
 * through `app.inject`, and the stopwatch runs until fake Twilio accepts the reply.
 *
 * - snooze ("snooze 10" right after a reminder), done ("done"), and a choice ("2" after
 *   Herald's "Which one?"): model calls per answer (target 0) and webhook-to-reply p50
 *   (target < 150 ms);
 * - "move it to 6" right after a reminder: model calls (target ≤ 3), the fake answering as
 *   the planner and scheduler-agent would (plan; update_scheduled_job + complete_step).
 */
import { performance } from 'node:perf_hooks';
import { DateTime } from 'luxon';
import type { Herald } from '../src/runtime.js';
import type { ScriptedAnthropicResponse } from '../test/fakes/fake-anthropic-server.js';
import type { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { startInProcessHerald } from './support/in-process-herald.js';
import { banner, ms, percentile, table } from './support/report.js';

const RUNS = Number(process.env.BENCH_CONVERSATION_RUNS ?? 40);
const WARM_UP = 5;
const ZONE = 'America/New_York';
const P50_TARGET_MS = 150;
const MOVE_CALLS_TARGET = 3;

export const conversationBenchmark: Benchmark = {
  name: 'conversation',
  description: 'Model-free answers (snooze, done, a choice) webhook-to-reply, and model calls for "move it to 6"',
  async run({ postgres, logger, print }) {
    print(banner(`Conversation: ${RUNS} runs per answer after ${WARM_UP} warm-up, webhook to reply accepted by Twilio`));
    const bench = await startInProcessHerald(postgres, 'conversation', logger);
    const { herald, database, fakeTwilio, fakeAnthropic } = bench;
    const checks: Check[] = [];
    const rows: Array<Array<string | number>> = [];
    let sid = 0;
    try {
      const send = async (phone: string, body: string): Promise<number> => {
        const before = fakeTwilio.messages.length;
        sid += 1;
        const form = { MessageSid: `SM${String(sid).padStart(32, '0')}`, AccountSid: fakeTwilio.accountSid, From: phone, To: '+15005550006', Body: body, NumMedia: '0' };
        const started = performance.now();
        const status = await bench.post(form);
        if (status !== 200) throw new Error(`the webhook answered ${status}`);
        await waitForReply(fakeTwilio, phone, before);
        return performance.now() - started;
      };
      let userIndex = 0;
      const newUser = async () => {
        userIndex += 1;
        const phone = `+1212${String(6_000_000 + userIndex).padStart(7, '0')}`;
        const user = await database.prisma.user.create({ data: { phone, timezone: ZONE, language: 'en', updatedAt: new Date() } });
        return { phone, userId: user.id };
      };
      const remindAndDeliver = async (userId: string, phone: string, text: string) => {
        const at = DateTime.now().setZone(ZONE).plus({ minutes: 30 }).toFormat("yyyy-MM-dd'T'HH:mm");
        const created = await herald.reminders.create(userId, ZONE, { text, at });
        if (!created.ok) throw new Error(created.error);
        const reminder = await database.prisma.reminder.findUniqueOrThrow({ where: { id: created.value.id } });
        const before = fakeTwilio.messages.length;
        await herald.reminderDelivery.deliver({ reminderId: reminder.id, dueAt: reminder.nextDueAt!.toISOString() });
        await waitForReply(fakeTwilio, phone, before);
      };

      const paths: Array<{ name: string; setUp: () => Promise<{ phone: string }>; answer: string }> = [
        {
          name: 'snooze ("snooze 10" after a reminder)',
          answer: 'snooze 10',
          setUp: async () => {
            const { phone, userId } = await newUser();
            await remindAndDeliver(userId, phone, 'Stretch');
            return { phone };
          },
        },
        {
          name: 'done ("done" after a reminder)',
          answer: 'done',
          setUp: async () => {
            const { phone, userId } = await newUser();
            await remindAndDeliver(userId, phone, 'Take the pills');
            return { phone };
          },
        },
        {
          name: 'choice ("2" after "Which one?")',
          answer: '2',
          setUp: async () => {
            const { phone, userId } = await newUser();
            for (const [text, minutes] of [['Call mom', 60], ['Call dad', 65]] as const) {
              const created = await herald.reminders.create(userId, ZONE, { text, at: DateTime.now().setZone(ZONE).plus({ minutes }).toFormat("yyyy-MM-dd'T'HH:mm") });
              if (!created.ok) throw new Error(created.error);
            }
            fakeAnthropic.enqueue(...ambiguousCancel());
            await send(phone, 'cancel the call reminder');
            return { phone };
          },
        },
      ];
      for (const path of paths) {
        const samples: number[] = [];
        let calls = 0;
        for (let run = -WARM_UP; run < RUNS; run += 1) {
          const { phone } = await path.setUp();
          const before = fakeAnthropic.requests.length;
          const elapsed = await send(phone, path.answer);
          if (run >= 0) {
            samples.push(elapsed);
            calls += fakeAnthropic.requests.length - before;
          }
        }
        const p50 = percentile(samples, 0.5);
        const perAnswer = calls / RUNS;
        rows.push([path.name, perAnswer, ms(p50), ms(percentile(samples, 0.95))]);
        checks.push({ name: `${path.name}: model calls`, target: '0', measured: String(perAnswer), pass: perAnswer === 0, kind: 'target' });
        checks.push({ name: `${path.name}: webhook to reply p50`, target: `< ${P50_TARGET_MS} ms`, measured: `${ms(p50)} ms`, pass: p50 < P50_TARGET_MS, kind: 'target' });
      }

      // "move it to 6" after a reminder: the model as it would act.
      const { phone, userId } = await newUser();
      await remindAndDeliver(userId, phone, 'Pick up the kids');
      const reminder = await database.prisma.reminder.findFirstOrThrow({ where: { userId } });
      const six = DateTime.now().setZone(ZONE).plus({ days: 1 }).set({ hour: 18, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm");
      fakeAnthropic.enqueue(
        { toolCalls: [{ name: 'create_plan', input: { analysis: 'Move the reminder just delivered', goal: 'Move it to 6 PM', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Move reminder ${reminder.id} to ${six}` }] } }] },
        { toolCalls: [{ name: 'update_scheduled_job', input: { reminderId: reminder.id, at: six } }, { name: 'complete_step', input: { summary: 'Moved', reply: 'Moved to 6 PM.', updated: [{ id: reminder.id, description: 'Pick up the kids' }] } }] },
      );
      const before = fakeAnthropic.requests.length;
      const moveMs = await send(phone, 'move it to 6');
      const moveCalls = fakeAnthropic.requests.length - before;
      const moved = await database.prisma.reminder.findUniqueOrThrow({ where: { id: reminder.id } });
      rows.push(['"move it to 6" after a reminder', moveCalls, ms(moveMs), '']);
      checks.push({ name: '"move it to 6": model calls', target: `≤ ${MOVE_CALLS_TARGET}`, measured: String(moveCalls), pass: moveCalls <= MOVE_CALLS_TARGET, kind: 'target' });
      checks.push({ name: '"move it to 6" moved the reminder just delivered', target: 'moved', measured: moved.status === 'active' && moved.nextDueAt?.getTime() !== reminder.nextDueAt?.getTime() ? 'moved' : 'not moved', pass: moved.status === 'active', kind: 'correctness' });
    } finally {
      await bench.close();
    }
    print(table(['answer', 'model calls each', 'p50 ms', 'p95 ms'], rows));
    return { checks };
  },
};

/** The model as it acts on "cancel the call reminder" with two matches: plan, a lookup that finds both, a clarifying report. */
function ambiguousCancel(): ScriptedAnthropicResponse[] {
  return [
    { toolCalls: [{ name: 'create_plan', input: { analysis: 'Cancel a reminder', goal: 'Cancel the call reminder', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: 'Cancel the "call" reminder' }] } }] },
    { toolCalls: [{ name: 'delete_scheduled_job', input: { match: 'call' } }] },
    { toolCalls: [{ name: 'complete_step', input: { summary: 'Two match', needsClarification: true, question: 'Which one?' } }] },
  ];
}

/** Waits until fake Twilio has accepted one more message for `phone` than it had at `before` (in total). */
async function waitForReply(fakeTwilio: FakeTwilioServer, phone: string, before: number): Promise<void> {
  for (;;) {
    if (fakeTwilio.messages.slice(before).some((message) => message.to === phone)) return;
    await fakeTwilio.waitForMessages(fakeTwilio.messages.length + 1, 10_000);
  }
}
