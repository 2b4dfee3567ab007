import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageMissedReminderNotice } from '../../src/reminders/missed-reminder-notice.js';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { raceAgainstOpenTransaction } from '../helpers/lock-race.js';
import { createUser } from './support.js';

/**
 * Reminders WhatsApp's window kept from going out are told once, at the user's next
 * message (src/reminders/missed-reminder-notice.ts). A turn commit stages the notice under
 * the user's lease; here two commits race directly, so the notice's own claim is all that
 * keeps the user from being told twice.
 */
describe('the missed-reminder notice, raced', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ start: false });
  });
  afterAll(async () => {
    await harness.close();
  });

  /** A user with two occurrences recorded undeliverable, not yet told. */
  async function userWithMissedReminders(phone: string) {
    const user = await createUser(harness, phone, { channel: 'whatsapp' });
    const { prisma } = harness.database;
    for (const [text, dueAt] of [['Call mom', '2026-03-02T22:00:00Z'], ['Take pills', '2026-03-03T14:00:00Z']] as const) {
      const reminder = await prisma.reminder.create({
        data: { userId: user.id, text, timezone: 'America/New_York', startLocal: '2026-03-02T17:00:00', status: 'completed', createdAt: new Date(), updatedAt: new Date() },
      });
      await prisma.reminderDelivery.create({ data: { reminderId: reminder.id, userId: user.id, dueAt: new Date(dueAt), status: 'undeliverable', handledAt: new Date(dueAt) } });
    }
    return user;
  }

  function stage(transaction: Prisma.TransactionClient, user: { id: string; phone: string }) {
    return stageMissedReminderNotice(transaction, harness.herald.outbox, {
      userId: user.id,
      channel: 'whatsapp',
      toAddress: `whatsapp:${user.phone}`,
      language: 'en',
      now: new Date('2026-03-04T12:00:00Z'),
    });
  }

  it('two commits staging it at once tell the user once, listing each missed reminder once', async () => {
    const user = await userWithMissedReminders('+14155550931');
    const { prisma } = harness.database;

    const [first, second] = await raceAgainstOpenTransaction(
      harness.database,
      (transaction) => stage(transaction, user),
      () => prisma.$transaction((transaction) => stage(transaction, user)),
    );

    expect([first, second]).toEqual([2, 0]);
    const notices = await prisma.outboundMessage.findMany({ where: { userId: user.id, kind: 'system' } });
    expect(notices).toHaveLength(1);
    expect(notices[0]!.body).toMatch(/Call mom[^]*Take pills/);
    expect(await prisma.reminderDelivery.count({ where: { userId: user.id, noticeDeliveredAt: null } })).toBe(0);
  });

  it('a later commit finds nothing left to tell', async () => {
    const user = await userWithMissedReminders('+14155550932');
    const { prisma } = harness.database;
    expect(await prisma.$transaction((transaction) => stage(transaction, user))).toBe(2);
    expect(await prisma.$transaction((transaction) => stage(transaction, user))).toBe(0);
    expect(await prisma.outboundMessage.count({ where: { userId: user.id, kind: 'system' } })).toBe(1);
  });
});
