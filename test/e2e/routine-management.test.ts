import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';
import type { RoutineRecurrence } from '../../src/routines/routine-schedule.js';

/**
 * Managing routines (issue 21 item 4): by text through scheduler-agent's tools, on the page
 * "show my routines" gives (pause, resume, delete), in MY DATA, and gone with DELETE MY DATA
 * and REVOKE (their jobs too); an owner's USERS counts them.
 */

const ZONE = 'America/New_York';
const weekdays: RoutineRecurrence = { frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] };
const sundays: RoutineRecurrence = { frequency: 'weekly', weekdays: ['SU'] };

function plan(task: string): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: 'A routine request', goal: 'Manage the user\'s routines', steps: [{ id: 'step_1', agent: 'scheduler-agent', task }] } }] };
}

async function routineJobs(harness: HeraldHarness, routineId: string) {
  const { rows } = await harness.database.pool.query<{ data: { dueAt: string } }>(`SELECT data FROM pgboss.job WHERE name = 'routine' AND data->>'routineId' = $1 AND state = 'created'`, [routineId]);
  return rows.map((row) => row.data.dueAt);
}

describe('managing routines by text and on a page', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415557${String(100 + counter).padStart(4, '0')}`;
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const tomorrowAt = (time: string) => `${DateTime.now().setZone(ZONE).plus({ days: 1 }).toFormat('yyyy-MM-dd')}T${time}`;

  async function twoRoutines() {
    const brief = await harness.herald.routines.create(userId, ZONE, { name: 'morning brief', instruction: 'send me my day', at: tomorrowAt('07:00'), recurrence: weekdays });
    const summary = await harness.herald.routines.create(userId, ZONE, { name: 'Sunday summary', instruction: 'summarise my week ahead', at: tomorrowAt('18:00'), recurrence: sundays });
    if (!brief.ok || !summary.ok) throw new Error('could not create the routines');
    return { brief: brief.value, summary: summary.value };
  }

  it('"what routines do I have" lists them from get_routines', async () => {
    await twoRoutines();
    harness.anthropic.enqueue(plan("List the user's routines"), { toolCalls: [{ name: 'get_routines', input: {} }] }, (request) => {
      const listed = JSON.parse(lastToolResults(request)[0]!.content) as { routines: Array<{ name: string; repeats: string }>; count: number };
      expect(listed.count).toBe(2);
      const lines = listed.routines.map((routine) => `${routine.name} (${routine.repeats})`);
      return { toolCalls: [{ name: 'complete_step', input: { summary: '2 routines', reply: `You have 2 routines:\n${lines.join('\n')}` } }] };
    });
    const reply = await harness.exchange(phone, 'what routines do I have');
    harness.anthropic.rethrowScriptErrors();
    expect(reply).toContain('morning brief (every weekday)');
    expect(reply).toContain('Sunday summary (every week on Sunday');
  });

  it('"pause the morning brief", then "move it to 6:30": paused, then moved with a new job', async () => {
    const { brief } = await twoRoutines();
    harness.anthropic.enqueue(plan('Pause the routine "morning brief"'), {
      toolCalls: [
        { name: 'update_routine', input: { match: 'morning brief', status: 'paused' } },
        { name: 'complete_step', input: { summary: 'Paused', reply: 'Paused your morning brief.', updated: [{ description: 'morning brief' }] } },
      ],
    });
    expect(await harness.exchange(phone, 'pause the morning brief')).toBe('Paused your morning brief.');
    harness.anthropic.rethrowScriptErrors();
    expect(await harness.database.prisma.routine.findUniqueOrThrow({ where: { id: brief.id } })).toMatchObject({ status: 'paused' });

    harness.anthropic.enqueue(plan('Move the routine "morning brief" to 6:30 and resume it'), {
      toolCalls: [
        { name: 'update_routine', input: { match: 'morning brief', at: tomorrowAt('06:30'), status: 'active' } },
        { name: 'complete_step', input: { summary: 'Moved', reply: 'Moved: your morning brief now comes at 6:30.', updated: [{ description: 'morning brief' }] } },
      ],
    });
    expect(await harness.exchange(phone, 'move it to 6:30')).toBe('Moved: your morning brief now comes at 6:30.');
    harness.anthropic.rethrowScriptErrors();
    const moved = await harness.database.prisma.routine.findUniqueOrThrow({ where: { id: brief.id } });
    expect(moved.status).toBe('active');
    expect(DateTime.fromJSDate(moved.nextDueAt!, { zone: ZONE }).toFormat('HH:mm')).toBe('06:30');
    expect(await routineJobs(harness, brief.id)).toContain(moved.nextDueAt!.toISOString());
  });

  it('"stop sending the Sunday summary" deletes it', async () => {
    const { brief, summary } = await twoRoutines();
    harness.anthropic.enqueue(plan('Delete the routine "Sunday summary"'), {
      toolCalls: [
        { name: 'delete_routine', input: { match: 'Sunday summary' } },
        { name: 'complete_step', input: { summary: 'Deleted', reply: "OK, no more Sunday summary.", deleted: [{ description: 'Sunday summary' }] } },
      ],
    });
    expect(await harness.exchange(phone, 'stop sending the Sunday summary')).toBe('OK, no more Sunday summary.');
    harness.anthropic.rethrowScriptErrors();
    expect((await harness.database.prisma.routine.findMany({ where: { userId } })).map((routine) => routine.id)).toEqual([brief.id]);
    expect(await harness.database.prisma.routine.findUnique({ where: { id: summary.id } })).toBeNull();
  });

  it('"show my routines" gives a page, with no model call, where each can be paused, resumed and deleted', async () => {
    const { brief, summary } = await twoRoutines();
    const reply = await harness.exchange(phone, 'show my routines');
    expect(harness.anthropic.requests).toHaveLength(0);
    const path = /https:\/\/herald\.test(\/p\/[A-Za-z0-9_-]+)/.exec(reply)?.[1];
    expect(reply).toMatch(/^Your routines \(pause, resume or delete each\): https:\/\/herald\.test\/p\//);
    const get = () => harness.herald.app.inject({ method: 'GET', url: path! });
    const post = (form: Record<string, string>) =>
      harness.herald.app.inject({ method: 'POST', url: path!, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
    const controls = (html: string) => ({ _csrf: /name="_csrf" value="([^"]+)"/.exec(html)![1]!, _revision: /name="_revision" value="([^"]+)"/.exec(html)![1]!, _section: '1' });
    const opened = (await get()).body;
    expect(opened).toContain('morning brief');
    expect(opened).toContain('summarise my week ahead');

    const paused = await post({ ...controls(opened), routine: 'morning brief', action: 'pause' });
    expect(paused.statusCode).toBe(200);
    expect(paused.body).toContain('Paused: morning brief.');
    expect(await harness.database.prisma.routine.findUniqueOrThrow({ where: { id: brief.id } })).toMatchObject({ status: 'paused' });

    const resumed = await post({ ...controls(paused.body), routine: 'morning brief', action: 'resume' });
    expect(resumed.body).toContain('Resumed: morning brief. Next run:');
    expect(await harness.database.prisma.routine.findUniqueOrThrow({ where: { id: brief.id } })).toMatchObject({ status: 'active' });

    const deleted = await post({ ...controls(resumed.body), routine: 'Sunday summary', action: 'delete' });
    expect(deleted.body).toContain('Deleted: Sunday summary.');
    expect(await harness.database.prisma.routine.findUnique({ where: { id: summary.id } })).toBeNull();

    const unknown = await post({ ...controls(deleted.body), routine: 'evening walk', action: 'pause' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toContain('No routine has that name.');
  });

  it('"show my routines" with none says how to make one', async () => {
    expect(await harness.exchange(phone, 'show my routines')).toBe('You have no routines yet. Try "every weekday at 7 send me my day".');
  });

  it('MY DATA lists routines; DELETE MY DATA erases them and their jobs', async () => {
    const { brief, summary } = await twoRoutines();
    const myData = await harness.exchange(phone, 'MY DATA');
    const path = /https:\/\/herald\.test(\/p\/[A-Za-z0-9_-]+)/.exec(myData)![1]!;
    const page = (await harness.herald.app.inject({ method: 'GET', url: path })).body;
    expect(page).toContain('Routines (2)');
    expect(page).toContain('send me my day');
    expect(await routineJobs(harness, brief.id)).toHaveLength(1);

    await harness.exchange(phone, 'DELETE MY DATA');
    await harness.exchange(phone, 'YES');
    expect(await harness.database.prisma.routine.count({ where: { id: { in: [brief.id, summary.id] } } })).toBe(0);
    expect(await routineJobs(harness, brief.id)).toEqual([]);
    expect(await routineJobs(harness, summary.id)).toEqual([]);
  });
});

describe('routines and the owners (invite mode)', () => {
  const OWNER = '+12125550170';
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { ACCESS_MODE: 'invite', OWNER_PHONES: OWNER } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('USERS shows how many routines each user has; REVOKE removes them and their jobs', async () => {
    const member = '+12125550171';
    await harness.database.prisma.user.create({ data: { phone: OWNER, name: 'Olga', timezone: ZONE, language: 'en', updatedAt: new Date() } });
    const user = await createUser(harness, member, { timezone: ZONE, name: 'Dana' });
    await harness.herald.access.allow(member, 'operator');
    const at = `${DateTime.now().setZone(ZONE).plus({ days: 1 }).toFormat('yyyy-MM-dd')}T07:00`;
    const created = await Promise.all(
      ['morning brief', 'evening list'].map((name) => harness.herald.routines.create(user.id, ZONE, { name, instruction: `the ${name}`, at, recurrence: { frequency: 'daily' } })),
    );
    const ids = created.map((result) => (result.ok ? result.value.id : ''));
    expect(await harness.exchange(OWNER, 'USERS')).toContain(`${member} Dana: never, 2 routines`);
    expect(await harness.exchange(OWNER, `REVOKE ${member}`)).toContain('can no longer use Herald');
    expect(await harness.database.prisma.routine.count({ where: { userId: user.id } })).toBe(0);
    for (const id of ids) expect(await routineJobs(harness, id)).toEqual([]);
  });
});
