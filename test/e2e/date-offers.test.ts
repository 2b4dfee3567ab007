import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { say } from '../../src/texts/texts.js';
import { textingUser } from '../helpers/texting-user.js';

/**
 * Important dates become offers (issue 21 item 7), through the webhook: a birthday learned
 * in the background leads to one question; YES sets a yearly reminder the day before, NO
 * sets nothing; the same date is never offered twice; quiet hours hold the offer.
 */
const DELAY_MS = 60 * 60 * 1000;

describe('important dates', () => {
  const clock = new ManualClock(new Date());
  const chat = textingUser({ clock, startAt: new Date().toISOString(), firstPhone: 7500, harness: { env: { FACT_LEARNING: 'on', FACT_LEARNING_DELAY_MS: String(DELAY_MS) } } });
  const prisma = () => chat.harness.database.prisma;
  // Two months ahead: the reminder's first time is well in the future.
  const birthday = () => DateTime.fromJSDate(clock.now(), { zone: 'America/New_York' }).plus({ days: 60 });

  async function quietHours(value: string) {
    await prisma().user.update({ where: { id: chat.userId }, data: { quietHours: value } });
  }
  /** The user mentions Dana's birthday and a pass learns it. */
  async function learnBirthday(text = "Dana's birthday is coming up") {
    chat.harness.anthropic.enqueue({ text: 'Nice!' });
    await chat.send(text);
    clock.advance(DELAY_MS + 1_000);
    const day = birthday();
    chat.harness.anthropic.enqueue({
      toolCalls: [
        {
          name: 'save_learned_facts',
          input: { facts: [{ category: 'important_date', subject: 'birthday dana', content: `Dana's birthday is on ${day.toFormat('d MMMM')}`, message: 1, date: { kind: 'birthday', who: 'Dana', month: day.month, day: day.day } }] },
        },
      ],
    });
    const before = chat.harness.twilio.messages.filter((message) => message.to === chat.phone).length;
    const outcome = await chat.harness.herald.learning.learn(chat.userId);
    chat.harness.anthropic.rethrowScriptErrors();
    return { outcome, before };
  }

  it('asks once; YES sets a yearly reminder the day before, at 9:00', async () => {
    await quietHours('off');
    const { before } = await learnBirthday();
    const [offer] = (await chat.harness.repliesTo(chat.phone, before + 1)).slice(before);
    const day = birthday();
    expect(offer!.body).toBe(`${say('en', 'dateOfferBirthday', { who: 'Dana', date: day.toFormat('d MMMM') })} ${say('en', 'confirmAsk')}`);

    const dayBefore = day.minus({ days: 1 });
    expect(await chat.send('YES')).toBe(say('en', 'dateOfferDone', { date: dayBefore.toFormat('d MMMM') }));
    const [reminder] = await prisma().reminder.findMany({ where: { userId: chat.userId } });
    expect(reminder).toMatchObject({ text: say('en', 'dateReminderBirthday', { who: 'Dana' }), startLocal: `${dayBefore.toFormat('yyyy-MM-dd')}T09:00`, rrule: 'FREQ=YEARLY' });

    // Learned again later: never offered twice.
    clock.advance(1_000);
    const again = await learnBirthday('Dana turns 40 this year!');
    expect(again.outcome.kind).toBe('learned');
    await chat.harness.idle(chat.phone);
    expect(chat.harness.twilio.messages.filter((message) => message.to === chat.phone)).toHaveLength(again.before);
    expect(await prisma().pendingQuestion.count({ where: { userId: chat.userId, status: 'pending' } })).toBe(0);
  });

  it('NO sets nothing', async () => {
    await quietHours('off');
    const { before } = await learnBirthday();
    await chat.harness.repliesTo(chat.phone, before + 1);
    await chat.send('NO');
    expect(await prisma().reminder.count({ where: { userId: chat.userId } })).toBe(0);
  });

  it('waits for quiet hours to end', async () => {
    // Quiet from an hour ago to an hour from now, wherever the real clock stands.
    const local = DateTime.fromJSDate(clock.now(), { zone: 'America/New_York' });
    const hhmm = (time: DateTime) => time.toFormat('HH:mm');
    await quietHours(`${hhmm(local.plus({ hours: DELAY_MS / 3_600_000 - 1 }))}-${hhmm(local.plus({ hours: DELAY_MS / 3_600_000 + 1 }))}`);
    const { before } = await learnBirthday();
    await chat.harness.idle(chat.phone);
    expect(chat.harness.twilio.messages.filter((message) => message.to === chat.phone)).toHaveLength(before);
    const { rows } = await chat.harness.database.pool.query<{ start_after: Date }>(
      `SELECT start_after FROM pgboss.job WHERE name = 'fact-learning' AND singleton_key = $1 AND state = 'created'`,
      [`offer:${chat.userId}`],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.start_after.getTime()).toBeGreaterThan(clock.now().getTime());
    expect((await prisma().user.findUniqueOrThrow({ where: { id: chat.userId } })).offeredDates).toEqual([]);
  });
});
