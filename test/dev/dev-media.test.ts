import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ACCOUNT_SID } from '../../src/dev/dev-media-store.js';
import { readEventStream } from '../../src/dev/event-stream.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { ConsoleTransport } from '../../src/outbox/console-transport.js';
import { randomIds } from '../../src/shared/ids.js';
import { FakeTranscriptionServer } from '../fakes/fake-transcription-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { photo, voiceNote } from '../helpers/media-fixtures.js';

/**
 * Attachments without Twilio: the dev phone (and `npm run chat`) upload a file, and the
 * message names it by a media URL on Herald's own Twilio-like dev API, which Herald then
 * downloads over real HTTP with the same fetcher, credentials and limits as Twilio's.
 */

const LOCAL = { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' };

describe('dev phone attachments', () => {
  let harness: HeraldHarness;
  let transcription: FakeTranscriptionServer;
  let baseUrl: string;

  beforeAll(async () => {
    transcription = await FakeTranscriptionServer.start();
    harness = await HeraldHarness.start({
      env: { ...LOCAL, TRANSCRIPTION_BASE_URL: transcription.url, TRANSCRIPTION_API_KEY: transcription.apiKey },
      transport: new ConsoleTransport(createSilentLogger(), randomIds, () => {}),
    });
    await harness.herald.app.listen({ host: '127.0.0.1', port: 0 });
    const address = harness.herald.app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('not listening');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await harness.close();
    await transcription.close();
  });

  async function upload(bytes: Buffer, type: string): Promise<string> {
    const response = await fetch(`${baseUrl}/dev/phone/media`, { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(bytes) });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  /** Sends as the dev phone does and waits for Herald's reply on the number's event stream. */
  async function exchange(phone: string, body: string, media: string[]): Promise<string> {
    const abort = new AbortController();
    const stream = await fetch(`${baseUrl}/dev/phone/events?from=${encodeURIComponent(phone)}`, { signal: abort.signal });
    const events = readEventStream(stream.body!);
    expect((await events.next()).value?.event).toBe('ready');
    const posted = await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: phone, body, media }) });
    expect(posted.status).toBe(202);
    const reply = await events.next();
    abort.abort();
    return (JSON.parse(reply.value!.data) as { body: string }).body;
  }

  it('a photo attached in the dev phone reaches the model as an image, downloaded like Twilio media', async () => {
    const id = await upload(await photo(2000, 1500), 'image/jpeg');
    harness.anthropic.enqueue((request) => ({ text: `I see ${request.mediaBlocks().length} photo.` }));
    expect(await exchange('+14155550171', 'what is this?', [id])).toBe('I see 1 photo.');
    const row = await harness.database.prisma.messageMedia.findFirstOrThrow({ where: { message: { user: { phone: '+14155550171' } } } });
    expect(row).toMatchObject({ status: 'ready', contentType: 'image/jpeg', url: expect.stringContaining(`/dev/twilio/2010-04-01/Accounts/${DEV_ACCOUNT_SID}/Messages/MM`) });
    // Deleted from the dev store once answered, as from Twilio.
    await expect.poll(async () => (await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '+14155550171', media: [id] }) })).status).toBe(400);
  });

  it('a voice note recorded in the browser is transcribed', async () => {
    transcription.enqueue({ text: 'What is on my list?' });
    harness.anthropic.enqueue((request) => ({ text: request.lastUserText().includes('<voice_note_transcript>') ? 'Your list is empty.' : 'no transcript' }));
    const id = await upload(await voiceNote('what is on my list'), 'audio/ogg');
    expect(await exchange('+14155550172', '', [id])).toBe('Your list is empty.');
    expect(transcription.requests[0]).toMatchObject({ format: 'ogg' });
  });

  it('the dev media API wants the dev account\'s credentials, and its store URL none', async () => {
    const id = await upload(Buffer.from('%PDF-1.4 test'), 'application/pdf');
    const url = `${baseUrl}/dev/twilio/2010-04-01/Accounts/${DEV_ACCOUNT_SID}/Messages/MM${'1'.repeat(32)}/Media/${id}`;
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
    expect((await fetch(url, { redirect: 'manual', headers: { authorization: `Basic ${Buffer.from(`${DEV_ACCOUNT_SID}:wrong`).toString('base64')}` } })).status).toBe(401);
    expect((await fetch(`${baseUrl}/dev/media-store/${id}?signature=forged`)).status).toBe(404);
  });

  it('bad uploads and messages get clear errors', async () => {
    const noType = await fetch(`${baseUrl}/dev/phone/media`, { method: 'POST', body: Buffer.from('x') });
    expect(noType.status).toBe(415);
    const unknown = await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '+14155550173', media: [`ME${'0'.repeat(32)}`] }) });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toBe('media: unknown or expired file; upload it to /dev/phone/media again');
    const tooMany = await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '+14155550173', media: Array.from({ length: 11 }, () => `ME${'0'.repeat(32)}`) }) });
    expect(await tooMany.text()).toBe('media: Twilio takes at most 10 attachments');
  });
});
