import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundService } from '../../src/conversation/inbound-service.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { systemClock } from '../../src/shared/clock.js';
import { TURN_QUEUE, turnQueueDefinition } from '../../src/queue/turn-queue.js';
import { inboundForm } from '../helpers/herald-harness.js';
import { inboundMessageSchema } from '../../src/channels/twilio-webhook-schemas.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const columns = `name, data, priority, state, retry_limit, retry_count, retry_delay, retry_backoff, singleton_key, singleton_on,
  EXTRACT(epoch FROM expire_in)::int AS expire_seconds, EXTRACT(epoch FROM keep_until - created_on)::int AS keep_seconds,
  dead_letter, policy, started_on, completed_on, output`;

describe('the webhook writes its turn job exactly as pg-boss would', () => {
  let database: TestDatabase;
  let queue: JobQueue;

  beforeAll(async () => {
    database = await createTestDatabase(3);
    queue = new JobQueue(database.pool, createSilentLogger());
    await queue.start([turnQueueDefinition(120_000)]);
  });
  afterAll(async () => {
    await queue.stop(1000);
    await database.drop();
  });

  it('matches the row pg-boss 10 writes for the same job, column for column', async () => {
    const inbound = new InboundService(database.pool, systemClock, 'UTC');
    const form = inboundForm({ from: '+14155550199', body: 'hi' }, `AC${'0'.repeat(32)}`);
    const outcome = await inbound.receive({ webhook: inboundMessageSchema.parse(form) });
    expect(outcome.kind).toBe('accepted');
    if (outcome.kind !== 'accepted') return;
    await queue.enqueue(TURN_QUEUE, { userId: outcome.userId });

    const { rows } = await database.pool.query(`SELECT ${columns} FROM pgboss.job WHERE name = $1 ORDER BY created_on`, [TURN_QUEUE]);
    expect(rows).toHaveLength(2);
    const [ours, theirs] = rows;
    // keep_until is measured from creation; both within a second of each other.
    expect(Math.abs(ours.keep_seconds - theirs.keep_seconds)).toBeLessThanOrEqual(1);
    delete ours.keep_seconds;
    delete theirs.keep_seconds;
    expect(ours).toEqual(theirs);
  });

  it('stores the message without a job when the queue does not exist, for recovery to schedule', async () => {
    const bare = await createTestDatabase(2);
    try {
      const inbound = new InboundService(bare.pool, systemClock, 'UTC');
      const form = inboundForm({ from: '+14155550198', body: 'hello' }, `AC${'0'.repeat(32)}`);
      const outcome = await inbound.receive({ webhook: inboundMessageSchema.parse(form) });
      expect(outcome.kind).toBe('accepted');
      expect(await bare.prisma.message.count({ where: { inboundStatus: 'pending' } })).toBe(1);
    } finally {
      await bare.drop();
    }
  });
});
