import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { inboundForm } from '../helpers/herald-harness.js';
import { freePort, startHeraldProcess } from '../helpers/herald-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

describe('a process killed mid-turn', () => {
  let database: TestDatabase;
  let fakeTwilio: FakeTwilioServer;
  let fakeAnthropic: FakeAnthropicServer;

  beforeAll(async () => {
    [database, fakeTwilio, fakeAnthropic] = await Promise.all([createTestDatabase(), FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  });
  afterAll(async () => {
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
    await database.drop();
  });

  it('answers exactly once after restart when killed between storing the message and replying', async () => {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATABASE_URL: database.url,
      PUBLIC_BASE_URL: publicBaseUrl,
      TWILIO_ACCOUNT_SID: fakeTwilio.accountSid,
      TWILIO_AUTH_TOKEN: fakeTwilio.authToken,
      TWILIO_SMS_FROM: '+15005550006',
      TWILIO_API_BASE_URL: fakeTwilio.url,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: fakeAnthropic.url,
      ANTHROPIC_MAX_RETRIES: '0',
      PLAN_TIMEOUT_MS: '3000',
    };
    // The first model call never answers: the process dies while it waits.
    fakeAnthropic.enqueue({ hang: true });
    const first = await startHeraldProcess(env);
    const form = inboundForm({ from: '+14155550123', body: 'what is the capital of France?' }, fakeTwilio.accountSid);
    const signature = twilio.getExpectedTwilioSignature(fakeTwilio.authToken, `${publicBaseUrl}/twilio/messages`, form);
    const response = await fetch(`${first.baseUrl}/twilio/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body: new URLSearchParams(form),
    });
    expect(response.status).toBe(200);
    await fakeAnthropic.waitForRequests(1);
    await first.crash();
    expect(fakeTwilio.messages).toHaveLength(0);

    fakeAnthropic.enqueue({ text: 'Paris.' });
    const second = await startHeraldProcess(env);
    const [reply] = await fakeTwilio.waitForMessages(1, 30_000);
    expect(reply).toMatchObject({ to: '+14155550123', body: 'Paris.' });
    // A clean shutdown finishes anything in flight; only then can we say "exactly one".
    const exitCode = await second.terminate();
    expect(exitCode).toBe(0);
    expect(fakeTwilio.messages).toHaveLength(1);
    const inbound = await database.prisma.message.findMany({ where: { role: 'user' } });
    expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
  }, 90_000);
});
