import { calendar as googleCalendar, type calendar_v3 } from '@googleapis/calendar';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGoogleServer } from './fake-google-server.js';

/**
 * The fake Calendar API, through the official client, refuses what Google refuses (with
 * Google's error shape) and pages its event lists at a small size, as Google may.
 */
describe('FakeGoogleServer: the Calendar API with the official client', () => {
  let google: FakeGoogleServer;
  let api: calendar_v3.Calendar;
  const zone = 'America/New_York';

  beforeAll(async () => {
    google = await FakeGoogleServer.start({ pageSize: 2 });
    const auth = new OAuth2Client({ clientId: google.clientId, clientSecret: google.clientSecret });
    auth.setCredentials({ access_token: google.grant().accessToken });
    api = googleCalendar({ version: 'v3', auth, rootUrl: `${google.url}/` });
  });
  afterAll(async () => {
    await google.close();
  });

  /** The status and Google error body a call failed with. */
  async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string; reason: string | undefined }> {
    const error = await call.then(
      () => expect.fail('Google should have refused it'),
      (caught: unknown) => caught as { status: number; response: { data: { error: { message: string; errors: Array<{ reason: string }> } } } },
    );
    return { status: error.status, message: error.response.data.error.message, reason: error.response.data.error.errors[0]?.reason };
  }

  const at = (hour: number, day = 2) => ({ dateTime: `2026-03-0${day}T${String(hour).padStart(2, '0')}:00:00`, timeZone: zone });

  it('refuses an event with no start or no end, as Google does', async () => {
    expect(await refusal(api.events.insert({ calendarId: 'primary', requestBody: { summary: 'x', start: at(9) } }))).toEqual({ status: 400, message: 'Missing end time.', reason: 'required' });
    expect(await refusal(api.events.insert({ calendarId: 'primary', requestBody: { summary: 'x', end: at(9) } }))).toEqual({ status: 400, message: 'Missing start time.', reason: 'required' });
    expect(google.titles()).toEqual([]);
  });

  it('refuses an end before the start, on insert and on a patch, and keeps the event as it was', async () => {
    expect(await refusal(api.events.insert({ calendarId: 'primary', requestBody: { summary: 'backwards', start: at(10), end: at(9) } }))).toEqual({
      status: 400,
      message: 'The specified time range is empty.',
      reason: 'timeRangeEmpty',
    });
    const created = await api.events.insert({ calendarId: 'primary', requestBody: { summary: 'dentist', start: at(9), end: at(10) } });
    expect(await refusal(api.events.patch({ calendarId: 'primary', eventId: created.data.id!, requestBody: { end: at(8) } }))).toMatchObject({ status: 400, reason: 'timeRangeEmpty' });
    expect((await api.events.get({ calendarId: 'primary', eventId: created.data.id! })).data.end).toEqual(at(10));
    await api.events.delete({ calendarId: 'primary', eventId: created.data.id! });
  });

  it('refuses a local time with no zone, and a date start with a dateTime end', async () => {
    const floating = { dateTime: '2026-03-02T09:00:00' };
    expect(await refusal(api.events.insert({ calendarId: 'primary', requestBody: { summary: 'x', start: floating, end: at(10) } }))).toMatchObject({ status: 400, message: 'Missing time zone definition for start time.' });
    expect(await refusal(api.events.insert({ calendarId: 'primary', requestBody: { summary: 'x', start: { date: '2026-03-02' }, end: at(10) } }))).toMatchObject({
      status: 400,
      message: 'Start and end times must either both be date or both be dateTime.',
    });
  });

  it('pages a list at its page size, whatever maxResults asks, and each token only for its own query', async () => {
    const ids: string[] = [];
    for (const hour of [9, 10, 11, 12, 13]) ids.push((await api.events.insert({ calendarId: 'primary', requestBody: { summary: `event ${hour}`, start: at(hour), end: at(hour + 1) } })).data.id!);
    const query = { calendarId: 'primary', timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-03T12:00:00Z', singleEvents: true, orderBy: 'startTime', maxResults: 2500 };

    const pages: string[][] = [];
    let pageToken: string | undefined;
    do {
      const page = await api.events.list({ ...query, pageToken });
      pages.push((page.data.items ?? []).map((item) => item.summary ?? ''));
      pageToken = page.data.nextPageToken ?? undefined;
    } while (pageToken);
    expect(pages).toEqual([['event 9', 'event 10'], ['event 11', 'event 12'], ['event 13']]);

    const first = await api.events.list(query);
    expect(await refusal(api.events.list({ ...query, timeMax: '2026-03-04T00:00:00Z', pageToken: first.data.nextPageToken! }))).toMatchObject({ status: 400, message: 'Invalid page token value.' });
    expect(await refusal(api.events.list({ ...query, timeMin: query.timeMax }))).toMatchObject({ status: 400, reason: 'timeRangeEmpty' });
    for (const id of ids) await api.events.delete({ calendarId: 'primary', eventId: id });
  });
});
