import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../src/logging/logger.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { ReminderService } from '../../src/reminders/reminder-service.js';
import { systemClock } from '../../src/shared/clock.js';
import { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { freePort, startHeraldProcess } from '../helpers/herald-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { reminderJobs } from '../reminders/support.js';

/**
 * A worker process killed while sending a reminder (issue 4): Twilio never accepted the
 * request it was making, so after a restart the reminder must go out once — not zero
 * times (the occurrence is recorded as handled, and its queue job stays "active" until
 * pg-boss expires it minutes later) and not twice.
 *
 * What picks it up is the follow-up job each delivery enqueues with its message: it runs
 * on whichever instance is alive once the dead sender's claim on the message (60 s) has
 * lapsed, finds the occurrence recorded and sends what is still pending.
 */
describe('a process killed while sending a reminder', () => {
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

  it('sends it exactly once after restart', async () => {
    const port = await freePort();
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATABASE_URL: database.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TWILIO_ACCOUNT_SID: fakeTwilio.accountSid,
      TWILIO_AUTH_TOKEN: fakeTwilio.authToken,
      TWILIO_SMS_FROM: '+15005550006',
      TWILIO_API_BASE_URL: fakeTwilio.url,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: fakeAnthropic.url,
    };
    const first = await startHeraldProcess(env);

    // The reminder, stored as the scheduler agent's tool stores it (the process created the queue).
    const user = await database.prisma.user.create({ data: { phone: '+14155550190', name: 'Ana', timezone: 'America/New_York', updatedAt: new Date() } });
    const reminders = new ReminderService(database.prisma, new JobQueue(database.pool, createSilentLogger()), systemClock, { maxTextLength: 500, maxActivePerUser: 500 });
    const due = DateTime.now().setZone('America/New_York').plus({ seconds: 3 });
    fakeTwilio.hangNext();
    const created = await reminders.create(user.id, 'America/New_York', { text: 'Call mom', at: due.toFormat("yyyy-MM-dd'T'HH:mm:ss") });
    expect(created.ok).toBe(true);

    // The process is sending it (Twilio has the request and never answers) when it dies.
    await fakeTwilio.waitForRequests(1, 20_000);
    await first.crash();
    expect(fakeTwilio.messages).toHaveLength(0);
    const [delivery] = await database.prisma.reminderDelivery.findMany();
    expect(delivery).toMatchObject({ status: 'sent' });
    expect(await database.prisma.outboundMessage.findMany()).toMatchObject([{ kind: 'reminder', status: 'dispatching', attempts: 1 }]);
    // The job that was running stays active (pg-boss expires it only after 120 s, at its next
    // maintenance); the follow-up check is what will finish the send.
    const jobs = await reminderJobs(database);
    expect(jobs.map((job) => [job.state, job.data.recheck ?? false])).toEqual([
      ['active', false],
      ['created', true],
    ]);

    const second = await startHeraldProcess(env);
    const [message] = await fakeTwilio.waitForMessages(1);
    expect(message).toMatchObject({ to: '+14155550190', body: '⏰ Reminder: Call mom' });
    // The follow-up sent it, not a retry of the stuck job: that one is still as the crash left it.
    const after = await reminderJobs(database);
    expect(after.find((job) => !job.data.recheck)).toMatchObject({ state: 'active' });
    // A clean shutdown finishes anything in flight; only then can we say "exactly once".
    expect(await second.terminate()).toBe(0);
    expect(fakeTwilio.messages).toHaveLength(1);
    expect(fakeTwilio.requests.map((request) => request.status)).toEqual([null, 201]);
    expect(await database.prisma.reminderDelivery.count()).toBe(1);
    expect(await database.prisma.outboundMessage.findMany()).toMatchObject([{ status: 'queued', attempts: 2 }]);
  }, 180_000);
});
