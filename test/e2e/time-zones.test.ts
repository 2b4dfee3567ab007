import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolvePhrase } from '../../src/time/resolve.js';
import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults } from '../helpers/model-script.js';
import { occurrenceJobs } from '../reminders/support.js';

/**
 * Time, end to end (issue 30): texts come in through the signed webhook; the fake model acts
 * as a real one would, resolving the user's words with resolve_date and planning with the
 * instant the tool returned; the reminder's job is checked in the database. A user whose number
 * does not settle their zone is asked once, without a model, before the first reminder.
 */

/** What a real planner does: resolve the phrase first, then plan a reminder at the instant the tool gave. */
function planner(phrase: string, language: string, what: string): Array<ScriptedAnthropicResponse | ((request: RecordedAnthropicRequest) => ScriptedAnthropicResponse)> {
  return [
    { toolCalls: [{ name: 'resolve_date', input: { expression: phrase, language } }] },
    (request) => {
      const [result] = lastToolResults(request);
      if (!result || result.isError) throw new Error(`resolve_date failed: ${result?.content}`);
      const resolved = JSON.parse(result.content) as { iso: string };
      return {
        toolCalls: [
          {
            name: 'create_plan',
            input: { analysis: 'A reminder at a resolved time', goal: 'Set the reminder', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "${what}" at ${resolved.iso}` }] },
          },
        ],
      };
    },
    (request) => {
      const at = /at (\S+)$/.exec((request.lastUserText().split('</task>')[0] ?? '').trim())?.[1] ?? '';
      const local = DateTime.fromISO(at, { setZone: true }).toFormat("yyyy-MM-dd'T'HH:mm");
      return {
        toolCalls: [
          { name: 'create_scheduled_job', input: { text: what, at: local } },
          { name: 'complete_step', input: { summary: 'Created the reminder', reply: `OK: "${what}" at ${local.slice(11)}.`, created: [{ description: what }] } },
        ],
      };
    },
  ];
}

describe('time zones and times through the webhook', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { DEFAULT_TIMEZONE: 'America/New_York' } });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  const userOf = (phone: string) => harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });

  async function reminderDueAt(userId: string): Promise<DateTime> {
    const reminder = await harness.database.prisma.reminder.findFirstOrThrow({ where: { userId } });
    const [job] = await occurrenceJobs(harness.database, reminder.id);
    return DateTime.fromJSDate(job!.startAfter);
  }

  it('asks a US toll-free user their zone once, without a model, then sets "5pm" at 17:00 on their clock', async () => {
    const phone = '+18445550101';
    const question = await harness.exchange(phone, 'remind me at 5pm to leave');
    // No model call for the question; the zone was a guess.
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(question).toContain('which time is it where you are?');
    const options = question.split('\n').filter((line) => /^\d+\) /.test(line));
    expect(options.length).toBeGreaterThanOrEqual(4);
    const chicago = options.findIndex((line) => line.includes('(Chicago)'));
    expect(chicago).toBeGreaterThanOrEqual(0);
    expect(await userOf(phone)).toMatchObject({ timezone: 'America/New_York', timezoneSource: 'guess' });
    expect((await userOf(phone)).timezoneAskedAt).not.toBeNull();

    // The pick needs no model; the waiting message is then answered on Chicago's clock.
    const expected = resolvePhrase('5pm', { now: DateTime.now().setZone('America/Chicago'), language: 'en', country: 'US' });
    if (expected.kind !== 'moment') throw new Error('5pm did not resolve');
    harness.anthropic.enqueue(...planner('5pm', 'en', 'leave'));
    const before = harness.twilio.messages.filter((message) => message.to === phone).length;
    await harness.inbound({ from: phone, body: String(chicago + 1) });
    const replies = await harness.repliesTo(phone, before + 2);
    expect(replies[before]!.body).toMatch(/^Got it: Chicago time/);
    expect(replies[before + 1]!.body).toBe(`OK: "leave" at ${expected.moment.toFormat('HH:mm')}.`);
    harness.anthropic.rethrowScriptErrors();
    expect(harness.anthropic.requests).toHaveLength(3);
    const user = await userOf(phone);
    expect(user).toMatchObject({ timezone: 'America/Chicago', timezoneSource: 'user' });
    const due = (await reminderDueAt(user.id)).setZone('America/Chicago');
    expect(due.toFormat('HH:mm')).toBe('17:00');
    expect(due.toMillis()).toBe(expected.moment.toMillis());

    // Asked once, ever: the next time is not a question.
    harness.anthropic.enqueue({ text: 'Sure.' });
    expect(await harness.exchange(phone, 'and what about tomorrow at 9?')).toBe('Sure.');
  });

  it('drops the question for anything but a pick, and answers the waiting message on the guess, saying which zone', async () => {
    const phone = '+18445550102';
    await harness.exchange(phone, 'remind me in 20 minutes to stretch');
    harness.anthropic.enqueue({ text: 'Nice to meet you!' }, ...planner('in 20 minutes', 'en', 'stretch'));
    const before = harness.twilio.messages.filter((message) => message.to === phone).length;
    await harness.inbound({ from: phone, body: 'hello there' });
    const replies = await harness.repliesTo(phone, before + 2);
    harness.anthropic.rethrowScriptErrors();
    expect(replies[before]!.body).toBe('Nice to meet you!');
    expect(replies[before + 1]!.body).toContain('(Times are New York time, guessed from your number.');
    expect(await userOf(phone)).toMatchObject({ timezone: 'America/New_York', timezoneSource: 'guess' });
  });

  it('"remind me at a quarter past 3 tomorrow" from a San Francisco number: 15:15 Los Angeles time, zone stated', async () => {
    const phone = '+14155550177';
    const expected = resolvePhrase('a quarter past 3 tomorrow', { now: DateTime.now().setZone('America/Los_Angeles'), language: 'en', country: 'US' });
    if (expected.kind !== 'moment') throw new Error('did not resolve');
    harness.anthropic.enqueue(...planner('a quarter past 3 tomorrow', 'en', 'call the bank'));
    const reply = await harness.exchange(phone, 'remind me at a quarter past 3 tomorrow to call the bank');
    harness.anthropic.rethrowScriptErrors();
    expect(reply).toBe('OK: "call the bank" at 15:15.\n\n(Times are Los Angeles time, guessed from your number. Tell me your city if you are elsewhere.)');
    const user = await userOf(phone);
    expect(user).toMatchObject({ timezone: 'America/Los_Angeles', timezoneSource: 'number' });
    expect((await reminderDueAt(user.id)).toMillis()).toBe(expected.moment.toMillis());
    expect(expected.moment.toFormat('HH:mm')).toBe('15:15');
  });

  it('Spanish: "recuérdame mañana a las 5 de la tarde" is 17:00 tomorrow in Madrid', async () => {
    const phone = '+34612345678';
    const now = DateTime.now().setZone('Europe/Madrid');
    harness.anthropic.enqueue(...planner('mañana a las 5 de la tarde', 'es', 'llamar a mamá'));
    const reply = await harness.exchange(phone, 'recuérdame mañana a las 5 de la tarde llamar a mamá');
    harness.anthropic.rethrowScriptErrors();
    expect(reply).toContain('(Las horas son de Madrid');
    const user = await userOf(phone);
    expect(user).toMatchObject({ timezone: 'Europe/Madrid', timezoneSource: 'number' });
    const due = (await reminderDueAt(user.id)).setZone('Europe/Madrid');
    expect(due.toFormat('yyyy-MM-dd HH:mm')).toBe(`${now.plus({ days: 1 }).toFormat('yyyy-MM-dd')} 17:00`);
  });

  it('French: "rappelle-moi dans une demi-heure" is half an hour from now', async () => {
    const phone = '+33612345678';
    const sent = DateTime.now().startOf('minute');
    harness.anthropic.enqueue(...planner('dans une demi-heure', 'fr', 'sortir le gâteau'));
    const reply = await harness.exchange(phone, 'rappelle-moi dans une demi-heure de sortir le gâteau');
    harness.anthropic.rethrowScriptErrors();
    expect(reply).toContain('(Les heures sont celles de Paris');
    const user = await userOf(phone);
    expect(user).toMatchObject({ timezone: 'Europe/Paris', timezoneSource: 'number' });
    const minutes = (await reminderDueAt(user.id)).diff(sent, 'minutes').minutes;
    expect(minutes).toBeGreaterThanOrEqual(30);
    expect(minutes).toBeLessThanOrEqual(31);
  });
});
