import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * docs/ARCHITECTURE.md "Request lifecycle" step 8: `POST /twilio/status` (signed) moves an outbound
 * part's status forward only; callbacks arrive out of order and twice.
 *
 * Decisions documented here:
 * - `undelivered`/`failed` with an "unreachable" code (21610 opted out, 21211 invalid
 *   number…) records the code and marks the user unreachable on that channel.
 * - 63016 (WhatsApp: outside the 24-hour window) records the code on the part but does
 *   NOT mark the user unreachable: they are reachable again the moment they write, and
 *   meanwhile only templates go through.
 * - An unknown MessageSid is answered 200 (Twilio would only retry or log an error) and
 *   changes nothing.
 */
describe('status callbacks', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  // Each test sends its own reply, to a number of its own, and scripts its own model call.
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Gets a reply sent to `from` and returns its Twilio sid once Herald has recorded it. */
  async function sentReply(from: string): Promise<string> {
    harness.anthropic.enqueue({ text: `Reply for ${from}.` });
    await harness.inbound({ from, body: 'hello' });
    const [reply] = await harness.repliesTo(from, 1);
    const sid = reply!.sid;
    // The sid is stored just after Twilio answered the send; callbacks only find the part then.
    await eventually(async () => ((await harness.database.prisma.outboundMessage.findUnique({ where: { twilioSid: sid } }))?.status === 'queued' ? true : undefined), `the part sent as ${sid} recorded as queued`, 20);
    return sid;
  }

  function callback(sid: string, status: string, extra: Record<string, string> = {}) {
    return harness.post('/twilio/status', {
      MessageSid: sid,
      SmsSid: sid,
      AccountSid: harness.twilio.accountSid,
      MessageStatus: status,
      SmsStatus: status,
      To: '+14155550000',
      From: '+15005550006',
      ApiVersion: '2010-04-01',
      ...extra,
    });
  }

  async function part(sid: string) {
    return harness.database.prisma.outboundMessage.findUniqueOrThrow({ where: { twilioSid: sid } });
  }

  it('moves forward through sent, delivered and read, and never back', async () => {
    const sid = await sentReply('+14155550501');
    const statusAfter = async (status: string) => {
      const response = await callback(sid, status, { ErrorCode: '' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/text\/xml/);
      return (await part(sid)).status;
    };

    expect(await statusAfter('queued')).toBe('queued');
    expect(await statusAfter('sending')).toBe('sending');
    expect(await statusAfter('sent')).toBe('sent');
    expect(await statusAfter('delivered')).toBe('delivered');
    // Late and repeated callbacks change nothing.
    expect(await statusAfter('sent')).toBe('delivered');
    expect(await statusAfter('queued')).toBe('delivered');
    expect(await statusAfter('delivered')).toBe('delivered');
    expect(await statusAfter('undelivered')).toBe('delivered');
    // WhatsApp's read receipt follows delivered.
    expect(await statusAfter('read')).toBe('read');
    expect(await statusAfter('delivered')).toBe('read');
    const row = await part(sid);
    expect(row.errorCode).toBeNull();
    expect(row.statusRank).toBe(8);
  });

  it('accepts delivered before sent (out of order) and keeps delivered', async () => {
    const sid = await sentReply('+14155550502');
    await callback(sid, 'delivered');
    await callback(sid, 'sent');
    expect((await part(sid)).status).toBe('delivered');
  });

  it('handles the same callback posted many times at once', async () => {
    const sid = await sentReply('+14155550503');
    const responses = await Promise.all(Array.from({ length: 5 }, () => callback(sid, 'delivered')));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect((await part(sid)).status).toBe('delivered');
  });

  it('records the error code of a failed message (30003 unreachable handset) without marking the user', async () => {
    const sid = await sentReply('+14155550504');
    await callback(sid, 'sent');
    await callback(sid, 'failed', { ErrorCode: '30003', ErrorMessage: 'Unreachable destination handset' });
    const row = await part(sid);
    expect(row).toMatchObject({ status: 'failed', errorCode: 30003, errorMessage: 'Unreachable destination handset' });
    // A late "delivered" does not resurrect it: the first terminal outcome stands.
    await callback(sid, 'delivered');
    expect((await part(sid)).status).toBe('failed');
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550504' } });
    expect(user.smsUnreachableAt).toBeNull();
  });

  it('marks the user unreachable on SMS when a message is undelivered with 21610', async () => {
    const sid = await sentReply('+14155550505');
    await callback(sid, 'undelivered', { ErrorCode: '21610' });
    expect(await part(sid)).toMatchObject({ status: 'undelivered', errorCode: 21610 });
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550505' } });
    expect(user.smsUnreachableAt).toBeInstanceOf(Date);
    expect(user.whatsappUnreachableAt).toBeNull();
  });

  it('records 63016 (outside the WhatsApp window) without marking the user unreachable', async () => {
    const sid = await sentReply('whatsapp:+14155550506');
    await callback(sid, 'undelivered', { ErrorCode: '63016' });
    expect(await part(sid)).toMatchObject({ status: 'undelivered', errorCode: 63016, channel: 'whatsapp' });
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550506' } });
    expect(user.whatsappUnreachableAt).toBeNull();
    expect(user.smsUnreachableAt).toBeNull();
  });

  it('answers 200 to a callback for a sid Herald never sent, and changes nothing', async () => {
    const sid = await sentReply('+14155550507');
    const before = await harness.database.prisma.outboundMessage.findMany({ orderBy: { id: 'asc' } });
    const response = await callback('SM' + 'f'.repeat(32), 'delivered');
    expect(response.statusCode).toBe(200);
    const after = await harness.database.prisma.outboundMessage.findMany({ orderBy: { id: 'asc' } });
    expect(after).toEqual(before);
    expect((await part(sid)).status).toBe('queued');
  });

  it('ignores a status it does not know', async () => {
    const sid = await sentReply('+14155550508');
    const response = await callback(sid, 'teleported');
    expect(response.statusCode).toBe(200);
    expect((await part(sid)).status).toBe('queued');
  });

  it('refuses malformed callbacks with 400 and unsigned ones with 403', async () => {
    const sid = await sentReply('+14155550509');
    const noStatus = await harness.post('/twilio/status', { MessageSid: sid, AccountSid: harness.twilio.accountSid });
    expect(noStatus.statusCode).toBe(400);
    const badSid = await harness.post('/twilio/status', { MessageSid: 'not-a-sid', MessageStatus: 'delivered' });
    expect(badSid.statusCode).toBe(400);
    const badCode = await callback(sid, 'failed', { ErrorCode: 'abc' });
    expect(badCode.statusCode).toBe(400);
    const unsigned = await harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/status',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ MessageSid: sid, MessageStatus: 'delivered' }).toString(),
    });
    expect(unsigned.statusCode).toBe(403);
    expect((await part(sid)).status).toBe('queued');
  });
});
