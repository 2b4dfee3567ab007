import { DateTime } from 'luxon';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { HERALD_WHATSAPP_NUMBER, type HeraldHarness } from '../helpers/herald-harness.js';
import { textingUser } from '../helpers/texting-user.js';
import { CheckedScript } from '../helpers/model-script.js';
import { occurrenceJobs } from '../reminders/support.js';

/**
 * Replying to a reminder (issue 19, items 1 and 2), through the webhook, on real Postgres:
 * every reminder Herald sends is a message of the conversation; within 30 minutes a reply
 * that is only a snooze or done word acts on it with no model call; anything else goes to
 * the planner with the reminder as its subject; on WhatsApp a reply quoting the reminder
 * acts on it whatever its age. Reminder occurrences are fired by hand at the fake clock's
 * time (far from the database's, so pg-boss never fires them on its own).
 */

const ZONE = 'America/New_York';
const MINUTE = 60_000;

describe('replying to a reminder', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 4100, timezone: ZONE });
  const script = new CheckedScript();
  let harness: HeraldHarness;
  let phone: string;
  let userId: string;
  beforeEach(() => ({ harness, phone, userId } = user));

  const prisma = () => harness.database.prisma;
  const local = (minutesFromNow: number) => DateTime.fromJSDate(clock.now(), { zone: ZONE }).plus({ minutes: minutesFromNow }).toFormat("yyyy-MM-dd'T'HH:mm");

  async function remind(text: string, minutesFromNow = 60, recurrence?: { frequency: 'daily' }) {
    const created = await harness.herald.reminders.create(userId, ZONE, { text, at: local(minutesFromNow), ...(recurrence ? { recurrence } : {}) });
    if (!created.ok) throw new Error(created.error);
    return prisma().reminder.findUniqueOrThrow({ where: { id: created.value.id } });
  }

  /** Fires a reminder's next occurrence at its due time, as its job would; returns the message Twilio got. */
  async function fire(reminderId: string) {
    const reminder = await prisma().reminder.findUniqueOrThrow({ where: { id: reminderId } });
    clock.set(reminder.nextDueAt!);
    const before = harness.twilio.messages.filter((message) => message.to.endsWith(phone)).length;
    await harness.herald.reminderDelivery.deliver({ reminderId, dueAt: reminder.nextDueAt!.toISOString() });
    return (await harness.repliesTo(harness.twilio.messages.find((message) => message.to.endsWith(phone))?.to ?? phone, before + 1))[before]!;
  }

  const send = (body: string, extra: Record<string, string> = {}, from = phone) => user.send(body, { from, extra });

  const conversation = () => prisma().message.findMany({ where: { userId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  const snoozes = (reminderId: string) => prisma().reminder.findMany({ where: { snoozedFromId: reminderId }, orderBy: { createdAt: 'asc' } });

  it('a reminder is a message of the conversation (kind, reminder, occurrence), once however often its job runs, and the planner sees it', async () => {
    const reminder = await remind('Call mom');
    const sent = await fire(reminder.id);
    expect(sent.body).toBe('⏰ Reminder: Call mom');
    // The job runs again (a retry, a second instance): no second message, in the outbox or the conversation.
    await harness.herald.reminderDelivery.deliver({ reminderId: reminder.id, dueAt: reminder.nextDueAt!.toISOString() });
    const messages = await conversation();
    expect(messages).toMatchObject([{ role: 'assistant', kind: 'reminder', content: '⏰ Reminder: Call mom', reminderId: reminder.id, reminderDueAt: reminder.nextDueAt }]);
    expect(messages[0]!.outboundGroupId).not.toBeNull();
    expect(await prisma().outboundMessage.count({ where: { userId } })).toBe(1);

    harness.anthropic.enqueue(
      script.checked((request) => {
        expect(request.body.messages?.[0]).toEqual({ role: 'user', content: '(earlier in our conversation)' });
        expect(request.body.messages?.[1]).toEqual({ role: 'assistant', content: '⏰ Reminder: Call mom' });
        expect(request.systemText()).toContain(`<reminder id="${reminder.id}"`);
        return { text: 'It was your reminder to call your mom.' };
      }),
    );
    clock.advance(2 * MINUTE);
    expect(await send('what was that?')).toBe('It was your reminder to call your mom.');
    script.rethrow();
  });

  it.each([
    ['snooze', 10],
    ['Snooze 5', 5],
    ['snooze 20 min', 20],
    ['snooze 45 minutes', 45],
    ['snooze 1 hour', 60],
    ['later', 10],
    ['in 15 minutes', 15],
    ['נודניק', 10],
    ['עוד 10 דקות', 10],
  ])('"%s" snoozes it %i minutes with no model call; it comes back once', async (answer, minutes) => {
    const reminder = await remind('Stretch');
    await fire(reminder.id);
    clock.advance(3 * MINUTE);
    const due = new Date(clock.now().getTime() + minutes * MINUTE);
    const reply = await send(answer);
    // One short line, in the language of the words (a command word alone says nothing of it: the stored English).
    expect(reply).toMatch(/[\u0590-\u05FF]/.test(answer) ? /^בסדר, אזכיר שוב ב-.+: Stretch$/ : /^OK, I'll remind you again at .+: Stretch$/);
    expect(harness.anthropic.requests).toHaveLength(0);
    const [snooze] = await snoozes(reminder.id);
    expect(snooze).toMatchObject({ text: 'Stretch', status: 'active', rrule: null, nextDueAt: due });
    expect((await occurrenceJobs(harness.database, snooze!.id)).map((job) => job.startAfter)).toEqual([due]);
    // It is re-delivered once at the new time, whatever runs its job twice.
    expect((await fire(snooze!.id)).body).toBe('⏰ Reminder: Stretch');
    await harness.herald.reminderDelivery.deliver({ reminderId: snooze!.id, dueAt: due.toISOString() });
    expect(harness.twilio.messages.filter((message) => message.body === '⏰ Reminder: Stretch')).toHaveLength(2);
    expect(await prisma().reminder.findUniqueOrThrow({ where: { id: snooze!.id } })).toMatchObject({ status: 'completed', occurrencesSent: 1 });
  });

  it('"snooze until 6" snoozes until the next 6 o\'clock on the clock', async () => {
    const reminder = await remind('Water the plants'); // fires 09:00 local
    await fire(reminder.id);
    expect(await send('snooze until 6')).toMatch(/^OK, I'll remind you again at 6:00\sPM: Water the plants$/);
    const [snooze] = await snoozes(reminder.id);
    expect(DateTime.fromJSDate(snooze!.nextDueAt!, { zone: ZONE }).toFormat('HH:mm')).toBe('18:00');
  });

  it.each(['done', '✓', 'בוצע', 'סיימתי'])('"%s" marks the occurrence done with no model call', async (answer) => {
    const reminder = await remind('Take the pills');
    await fire(reminder.id);
    clock.advance(MINUTE);
    const reply = await send(answer);
    expect(reply).toContain('Take the pills');
    expect(harness.anthropic.requests).toHaveLength(0);
    const delivery = await prisma().reminderDelivery.findFirstOrThrow({ where: { reminderId: reminder.id } });
    expect(delivery.acknowledgedAt).toEqual(clock.now());
    const turn = await prisma().turn.findFirstOrThrow({ where: { userId }, orderBy: { startedAt: 'desc' } });
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 0 });
  });

  it('"done" on a repeating reminder acknowledges this occurrence and names the next; a snooze of it still waiting is dropped', async () => {
    const reminder = await remind('Vitamins', 60, { frequency: 'daily' });
    await fire(reminder.id);
    await send('snooze 10');
    expect(await send('done')).toMatch(/^✓ Done: Vitamins\. Next one: .+\.$/);
    expect((await snoozes(reminder.id)).map((snooze) => snooze.status)).toEqual(['cancelled']);
    expect(await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).toMatchObject({ status: 'active' });
  });

  it.each(['snooze 0', 'snooze 99999', 'snooze -5'])('"%s": a clear reply, nothing scheduled', async (answer) => {
    const reminder = await remind('Call the bank');
    await fire(reminder.id);
    expect(await send(answer)).toBe('I can snooze a reminder for 1 minute up to 7 days: try "snooze 10" or "snooze 1 hour". Nothing was changed.');
    expect(await snoozes(reminder.id)).toEqual([]);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('a snooze word with no reminder delivered in the last 30 minutes goes to the planner', async () => {
    const reminder = await remind('Call the bank');
    await fire(reminder.id);
    clock.advance(31 * MINUTE);
    harness.anthropic.enqueue({ text: 'Snooze what? Nothing is waiting.' });
    expect(await send('snooze 10')).toBe('Snooze what? Nothing is waiting.');
    expect(harness.anthropic.requests).toHaveLength(1);
    expect(await snoozes(reminder.id)).toEqual([]);
  });

  it('"move it to 6": the planner gets the reminder as the subject and its id; the scheduler moves it by id (2 model calls)', async () => {
    const reminder = await remind('Pick up the kids'); // 09:00 local today
    await fire(reminder.id);
    const six = DateTime.fromJSDate(clock.now(), { zone: ZONE }).set({ hour: 18, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm");
    harness.anthropic.enqueue(
      script.checked((request) => {
        expect(request.systemText()).toContain(`<reminder id="${reminder.id}"`);
        expect(request.systemText()).toContain('scheduler-agent');
        return { toolCalls: [{ name: 'create_plan', input: { analysis: 'Move the reminder just delivered', goal: 'Move it to 18:00', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Move reminder ${reminder.id} ("Pick up the kids") to ${six}` }] } }] };
      }),
      {
        toolCalls: [
          { name: 'update_scheduled_job', input: { reminderId: reminder.id, at: six } },
          { name: 'complete_step', input: { summary: 'Moved to 6 PM', reply: "OK, I'll remind you at 6 PM.", updated: [{ id: reminder.id, description: 'Pick up the kids at 6 PM' }] } },
        ],
      },
    );
    expect(await send('move it to 6')).toBe("OK, I'll remind you at 6 PM.");
    script.rethrow();
    expect(harness.anthropic.requests.length).toBeLessThanOrEqual(3);
    // The one-off that had just fired is set again, for 6 PM: the same reminder, no copy.
    expect(await prisma().reminder.findMany({ where: { userId } })).toMatchObject([{ id: reminder.id, status: 'active', nextDueAt: DateTime.fromISO(six, { zone: ZONE }).toJSDate() }]);
  });

  it('WhatsApp: a reply quoting a reminder from hours ago acts on that reminder; quoting an older answer makes it the planner\'s subject', async () => {
    const whatsapp = `whatsapp:${phone}`;
    await prisma().user.update({ where: { id: userId }, data: { preferredChannel: 'whatsapp', lastWhatsappInboundAt: clock.now() } });
    const morning = await remind('Morning run');
    const sent = await fire(morning.id);
    expect(sent.to).toBe(whatsapp);
    // Hours later, other messages in between.
    clock.advance(5 * 60 * MINUTE);
    harness.anthropic.enqueue({ text: 'Hi Ana!' });
    const greeting = await send('hi', {}, whatsapp);
    const greetingSid = harness.twilio.messages.find((message) => message.body === greeting)!.sid;
    // A bare "done" hours later is not about the reminder...
    harness.anthropic.enqueue({ text: 'Done with what?' });
    expect(await send('done', {}, whatsapp)).toBe('Done with what?');
    // ...but quoting it is, whatever its age.
    expect(await send('snooze 1 hour', { OriginalRepliedMessageSid: sent.sid }, whatsapp)).toContain('Morning run');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect((await snoozes(morning.id)).map((snooze) => snooze.nextDueAt)).toEqual([new Date(clock.now().getTime() + 60 * MINUTE)]);
    expect(await send('done', { OriginalRepliedMessageSid: sent.sid }, whatsapp)).toBe('✓ Done: Morning run');
    expect((await prisma().message.findFirstOrThrow({ where: { userId, role: 'user', content: 'done', quotedSid: sent.sid } })).quotedSid).toBe(sent.sid);

    harness.anthropic.enqueue(
      script.checked((request) => {
        expect(request.systemText()).toContain('The user replied by quoting this message of yours');
        expect(request.systemText()).toContain('Hi Ana!');
        return { text: 'I said hi.' };
      }),
    );
    expect(await send('what did you mean?', { OriginalRepliedMessageSid: greetingSid }, whatsapp)).toBe('I said hi.');
    script.rethrow();
    expect(HERALD_WHATSAPP_NUMBER).toMatch(/^whatsapp:/);
  });
});
