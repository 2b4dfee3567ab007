import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropicServer, type ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { crashTestEnvironment, instanceStartingTurn, postInbound, startHeraldProcess } from '../helpers/crash-takeover.js';
import type { HeraldProcess } from '../helpers/herald-process.js';
import { plannerRequest, RoutedScript, stepRequest } from '../helpers/model-script.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { waitUntil } from '../db/wait-until.js';

/**
 * A process SIGKILLed while two steps of one plan run at once (issue 25): one step has made
 * its reminder, the other is still waiting on the model. Another instance takes the turn over
 * and runs the request again: the user is answered once, and the reminder already made is
 * not made again (its call is keyed by the request, and the re-run finds it done).
 */
describe('a process killed in the middle of two steps running at once', () => {
  let database: TestDatabase;
  let fakeTwilio: FakeTwilioServer;
  let fakeAnthropic: FakeAnthropicServer;
  const running: HeraldProcess[] = [];

  beforeAll(async () => {
    [database, fakeTwilio, fakeAnthropic] = await Promise.all([createTestDatabase(), FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  });
  afterAll(async () => {
    for (const instance of running.splice(0)) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.crash();
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
    await database.drop();
  });

  it('the instance that takes over answers once, and the reminder made before the kill is not made twice', async () => {
    const publicBaseUrl = 'https://herald.example.test';
    // Short leases, so the takeover comes within a few seconds.
    const extra = { TURN_LEASE_MS: '2000', TURN_LEASE_SWEEP_MS: '200' };
    const instances = [
      await startHeraldProcess(await crashTestEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic, publicBaseUrl, extra })),
      await startHeraldProcess(await crashTestEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic, publicBaseUrl, extra })),
    ] as const;
    running.push(...instances);

    const at = DateTime.now().setZone('America/New_York').plus({ days: 1 }).set({ hour: 17, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm");
    const plan: ScriptedAnthropicResponse = {
      toolCalls: [
        {
          name: 'create_plan',
          input: {
            analysis: 'Two independent things',
            goal: 'A reminder and a fact',
            steps: [
              { id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "Call mom" at ${at}`, dependsOn: [] },
              { id: 'step_2', agent: 'memory-agent', task: 'Save: the user parks on level 3 (category routine, subject parking)', dependsOn: [] },
            ],
          },
        },
      ],
    };
    const reminderCall = { name: 'create_scheduled_job', input: { text: 'Call mom', at } };
    const reminderStep = stepRequest('Call mom');
    const routes = new RoutedScript([
      // The killed run and the run that takes over plan alike.
      ['planner', plannerRequest, [plan, plan]],
      [
        'reminder step',
        reminderStep,
        [
          { toolCalls: [reminderCall] },
          // Killed while this answer is awaited: the reminder is made and its call recorded.
          { hang: true },
          // The run that takes over makes the same call.
          { toolCalls: [reminderCall] },
          { toolCalls: [{ name: 'complete_step', input: { summary: 'Reminder set', reply: "I'll remind you to call mom tomorrow at 5 PM.", created: [{ description: 'Call mom' }] } }] },
        ],
      ],
      [
        'memory step',
        stepRequest('parks on level 3'),
        [
          { hang: true },
          {
            toolCalls: [
              { name: 'remember_fact', input: { category: 'routine', subject: 'parking', content: 'Parks on level 3' } },
              { name: 'complete_step', input: { summary: 'Saved', reply: 'Noted: you park on level 3.', created: [{ description: 'Parks on level 3' }] } },
            ],
          },
        ],
      ],
    ]);
    fakeAnthropic.setFallback(routes.answer);

    const holder = instanceStartingTurn([...instances]);
    expect(await postInbound(instances[0], publicBaseUrl, fakeTwilio, { from: '+14155550177', body: 'remind me to call mom tomorrow at 5, and remember I park on level 3' })).toBe(200);
    const killed = await holder;
    // Both steps are in flight, and the reminder step's call has run (its loop asked the model again)...
    while (fakeAnthropic.requests.filter(reminderStep).length < 2 || !fakeAnthropic.requests.some(stepRequest('parks on level 3'))) {
      await fakeAnthropic.waitForRequests(fakeAnthropic.requests.length + 1, 20_000);
    }
    const user = await database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550177' } });
    expect(await database.prisma.reminder.count({ where: { userId: user.id } })).toBe(1);
    // ...and is recorded as done (written behind the step, in another process: no event to await).
    await waitUntil(async () => (await database.prisma.toolCallKey.count({ where: { userId: user.id, tool: 'create_scheduled_job', finishedAt: { not: null } } })) === 1, 'the reminder call recorded as done');
    await killed.crash();
    const survivor = instances.find((instance) => instance !== killed)!;

    const [reply] = await fakeTwilio.waitForMessages(1, 30_000);
    expect(reply).toMatchObject({ to: '+14155550177', body: "I'll remind you to call mom tomorrow at 5 PM.\nNoted: you park on level 3." });
    expect(await survivor.terminate()).toBe(0);
    expect(fakeTwilio.messages).toHaveLength(1);
    expect(routes.unused()).toEqual([]);

    // One reminder, one fact; the taker's call was answered from the key, not made again.
    expect(await database.prisma.reminder.count({ where: { userId: user.id } })).toBe(1);
    expect(await database.prisma.fact.count({ where: { userId: user.id } })).toBe(1);
    expect(survivor.output.some((line) => line.includes('"event":"tool_call_replayed"') && line.includes('"tool":"create_scheduled_job"'))).toBe(true);
    const turns = await database.prisma.turn.findMany({ where: { userId: user.id }, orderBy: { startedAt: 'asc' } });
    expect(turns.map((turn) => [turn.status, turn.errorKind])).toEqual([
      ['failed', 'interrupted'],
      ['succeeded', null],
    ]);
    const replies = await database.prisma.message.findMany({ where: { userId: user.id, role: 'assistant' } });
    expect(replies).toHaveLength(1);
  }, 120_000);
});
