import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { crashTestEnvironment, postInbound } from '../helpers/crash-takeover.js';
import { startHeraldProcess, type HeraldProcess } from '../helpers/herald-process.js';
import { createEmptyDatabase } from '../helpers/test-database.js';

/**
 * Issue 31 item 1: several instances started at once on a new database all come up. They
 * migrate under the migrator's lock and create pg-boss's schema and queues in turn
 * (src/queue/job-queue.ts): before, one of two such instances died in 4 of 5 tries (a
 * deadlock in pg-boss's createQueue, or its schema created twice).
 */
describe('instances started together on a new database', () => {
  let fakeTwilio: FakeTwilioServer;
  let fakeAnthropic: FakeAnthropicServer;
  const running: HeraldProcess[] = [];
  const drops: Array<() => Promise<void>> = [];
  const publicBaseUrl = 'https://herald.example.test';

  beforeAll(async () => {
    [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  });
  afterEach(async () => {
    for (const instance of running.splice(0)) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.terminate();
    fakeTwilio.reset();
  });
  afterAll(async () => {
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
    for (const drop of drops) await drop();
  });

  it('three at once all listen and answer', async () => {
    const database = await createEmptyDatabase();
    drops.push(database.drop);
    const environments = await Promise.all([1, 2, 3].map(() => crashTestEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic, publicBaseUrl })));
    const instances = await Promise.all(environments.map((environment) => startHeraldProcess(environment)));
    running.push(...instances);
    for (const [index, instance] of instances.entries()) {
      expect(instance.child.exitCode, instance.output.join('\n')).toBeNull();
      fakeAnthropic.enqueue({ text: `hello from instance ${index}` });
      const from = `+14155551${index}00`;
      const before = fakeTwilio.messages.length;
      expect(await postInbound(instance, publicBaseUrl, fakeTwilio, { from, body: 'hi' })).toBe(200);
      const sent = await fakeTwilio.waitForMessages(before + 1);
      expect(sent.filter((message) => message.to === from).map((message) => message.body)).toEqual([`hello from instance ${index}`]);
    }
  });
});
