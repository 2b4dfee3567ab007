import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { creationBarrier, type CreationBarrier } from '../helpers/creation-barrier.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults, plannerRequest, RoutedScript, stepRequest, type RequestMatch } from '../helpers/model-script.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { createUser } from '../reminders/support.js';

/**
 * A limit through the path the planner really takes (issue 32 item 3): one message, a plan of
 * three independent steps that run at once, each creating a routine with create_routine.
 * With 9 of ROUTINES_PER_USER's 10 kept, exactly one is saved and the other two steps are
 * told why, however the three interleave: Herald's routine counts meet at a barrier (the
 * worst interleaving made certain) unless the user's lock serialises them.
 */
describe('three plan steps creating routines at once', () => {
  let database: TestDatabase;
  let barrier: CreationBarrier;
  let harness: HeraldHarness;

  beforeAll(async () => {
    database = await createTestDatabase();
    barrier = creationBarrier(database, 'routine', 'count');
    harness = await HeraldHarness.start({ database: { ...database, prisma: barrier.prisma } });
  });
  afterAll(async () => {
    await harness.close();
    await database.drop();
  });

  /** Answers `answer` only once requests matching every one of `others` have arrived: the steps are in flight together. */
  function alongWith(others: RequestMatch[], answer: ScriptedAnthropicResponse): ScriptedAnthropicResponse {
    return async () => {
      while (!others.every((other) => harness.anthropic.requests.some(other))) await harness.anthropic.waitForRequests(harness.anthropic.requests.length + 1, 5000);
      return answer;
    };
  }

  /** The step's report, from what its create_routine call answered. */
  const report = (name: string) => (request: RecordedAnthropicRequest): ScriptedAnthropicResponse => {
    const [result] = lastToolResults(request);
    return result?.isError
      ? { toolCalls: [{ name: 'complete_step', input: { summary: `The ${name} routine was refused: ${result.content}`, reply: `No room for the ${name} routine.` } }] }
      : { toolCalls: [{ name: 'complete_step', input: { summary: `The ${name} routine is set`, reply: `The ${name} routine is set.` } }] };
  };

  it('9 of 10 routines and three created by three steps at once: exactly 10, two steps told no', async () => {
    const phone = '+14155553301';
    const user = await createUser(harness, phone, { timezone: 'America/New_York' });
    for (let index = 0; index < 9; index += 1) {
      const made = await harness.herald.routines.create(user.id, user.timezone, { instruction: `brief number ${index}`, at: '2031-03-03T07:00', recurrence: { frequency: 'daily' } });
      if (!made.ok) throw new Error(made.error);
    }

    const names = ['news', 'weather', 'inbox'];
    const steps = names.map((name) => stepRequest(`the ${name} routine`));
    harness.anthropic.setFallback(
      new RoutedScript([
        ['planner', plannerRequest, [{
          toolCalls: [{
            name: 'create_plan',
            input: { analysis: 'Three routines', goal: 'Set up three routines', steps: names.map((name, index) => ({ id: `step_${index + 1}`, agent: 'scheduler-agent', task: `Create the ${name} routine: every day at 8:00 send the ${name}`, dependsOn: [] })) },
          }],
        }]],
        ...names.map((name, index): [string, RequestMatch, ScriptedAnthropicResponse[]] => [
          `${name} step`,
          steps[index]!,
          [
            alongWith(steps, { toolCalls: [{ name: 'create_routine', input: { name, instruction: `send me the ${name}`, at: '2031-03-03T08:00', recurrence: { frequency: 'daily' } } }] }),
            report(name),
          ],
        ]),
      ]).answer,
    );

    barrier.arm(3);
    const reply = await harness.exchange(phone, 'every morning at 8 send me the news, the weather and my inbox');
    expect(await database.prisma.routine.count({ where: { userId: user.id } })).toBe(10);
    const set = names.filter((name) => reply.includes(`The ${name} routine is set.`));
    const refused = names.filter((name) => reply.includes(`No room for the ${name} routine.`));
    expect([set.length, refused.length]).toEqual([1, 2]);
    // The refused steps were told why, in the tool's words.
    const results = harness.anthropic.requests.flatMap((request) => lastToolResults(request)).filter((result) => result.isError);
    expect(results.map((result) => result.content)).toEqual([expect.stringContaining('already has 10 routines'), expect.stringContaining('already has 10 routines')]);
  });
});
