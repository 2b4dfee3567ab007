import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';

describe('a reminder, end to end', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('is created through the scheduler agent and fires at its time through the outbox', async () => {
    const user = '+14155550177';
    const dueLocal = DateTime.now().setZone('America/Los_Angeles').plus({ seconds: 6 }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'reminder', goal: 'Remind the user to call mom', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "Call mom" at ${dueLocal}` }] } }] },
      {
        toolCalls: [
          { name: 'create_scheduled_job', input: { text: 'Call mom', at: dueLocal } },
          { name: 'complete_step', input: { summary: 'Reminder created', reply: "OK, I'll remind you to call mom.", created: [{ description: 'Call mom' }] } },
        ],
      },
    );
    await harness.database.prisma.user.create({ data: { phone: user, timezone: 'America/Los_Angeles', name: 'Ana', updatedAt: new Date() } });
    await harness.inbound({ from: user, body: 'remind me to call mom in 3 seconds' });
    const [confirmation] = await harness.replies(1);
    expect(confirmation?.body).toBe("OK, I'll remind you to call mom.");
    const reminder = await harness.database.prisma.reminder.findFirstOrThrow();
    expect(reminder).toMatchObject({ text: 'Call mom', status: 'active', timezone: 'America/Los_Angeles' });

    const messages = await harness.replies(2);
    expect(messages[1]?.body).toBe('⏰ Reminder: Call mom');
    const delivered = await harness.database.prisma.reminderDelivery.findMany();
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.status).toBe('sent');
    expect((await harness.database.prisma.reminder.findFirstOrThrow()).status).toBe('completed');
  });
});
