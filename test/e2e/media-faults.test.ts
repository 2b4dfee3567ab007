import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeTwilioMediaStore, type MediaBehaviour } from '../fakes/twilio/media-store.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { corruptPng, HTML_PAGE, mediaFields, pdf, photo } from '../helpers/media-fixtures.js';
import { CheckedScript } from '../helpers/model-script.js';
import { mappedResolver } from '../helpers/outbound.js';
import { RecordingServer } from '../helpers/recording-server.js';
import { createUser } from '../reminders/support.js';

/**
 * Bad input and faults around attachments, through the signed webhook: every one gets a
 * clear line in the reply, loses nothing (the message and its text are answered), and
 * never makes Herald read more, wait longer or send credentials further than it should.
 */

const script = new CheckedScript();
const checked = script.checked.bind(script);
const MAX_BYTES = 1024 * 1024;

describe('media: bad input and faults', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let userId: string;

  // Where a redirect the outbound policy let through would land: a server on this machine.
  let trap: RecordingServer;

  beforeAll(async () => {
    trap = await RecordingServer.start();
    harness = await HeraldHarness.start({
      env: { MEDIA_MAX_BYTES: String(MAX_BYTES), MEDIA_TIMEOUT_MS: '1500' },
      // A public-looking name for the media store that leads to this machine.
      resolver: mappedResolver({ 'media-store.example.com': ['127.0.0.1'] }),
    });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1646555${String(2000 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await Promise.all([harness.close(), trap.close()]);
  });

  const media = () => harness.twilio.media;

  async function send(body: string, attachments: Array<{ url: string; type: string }>): Promise<string> {
    const response = await harness.inbound({ from: phone, body, numMedia: attachments.length, extra: mediaFields(attachments) });
    expect(response.statusCode).toBe(200);
    const [reply] = await harness.repliesTo(phone, 1);
    script.rethrow();
    return reply!.body ?? '';
  }

  const rows = () => harness.database.prisma.messageMedia.findMany({ where: { message: { userId } }, orderBy: { position: 'asc' } });

  it('refuses a media URL on another host in a correctly signed webhook: nothing is fetched, and it is logged', async () => {
    const elsewhere = 'https://evil.example/2010-04-01/Accounts/AC00000000000000000000000000000000/Messages/MM1/Media/ME1';
    expect(await send('', [{ url: elsewhere, type: 'image/jpeg' }])).toBe("I couldn't download your photo. Please send it again.");
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(media().requests).toHaveLength(0);
    expect((await rows())[0]).toMatchObject({ status: 'failed', problem: 'refused_host', sha256: null });
    expect(harness.logs.lines.some((line) => line.msg === 'media URL is not on the Twilio API origin; refused without fetching' && line.host === 'evil.example')).toBe(true);
  });

  it.each<[string, MediaBehaviour, string]>([
    ['401', { kind: 'status', status: 401 }, 'unauthorized'],
    ['404', { kind: 'status', status: 404 }, 'not_found'],
    ['a redirect loop', { kind: 'redirect-loop' }, 'redirect_loop'],
  ])('Twilio answering %s: a clear line, the text still answered', async (_name, behaviour, problem) => {
    const url = media().add(await photo(300, 200), 'image/jpeg', { behaviour });
    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.lastUserText()).toContain(`could not be downloaded (${problem})`);
        return { text: 'Happy to help with the trip.' };
      }),
    );
    expect(await send('plan my trip from this', [{ url, type: 'image/jpeg' }])).toBe("Happy to help with the trip.\n\nI couldn't download your photo. Please send it again.");
    expect((await rows())[0]).toMatchObject({ status: 'failed', problem });
    // A redirect loop is cut off: the first request only carried credentials.
    expect(media().requests.filter((request) => request.origin === 'store').every((request) => request.authorization === undefined)).toBe(true);
    expect(media().requests.length).toBeLessThanOrEqual(4);
  });

  it.each<[string, (trapPort: number) => string, string]>([
    ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'link-local'],
    ['a private address, over https', () => 'https://10.0.0.7/media.twiliocdn.com/ME1', 'private'],
    ['localhost (a server listens there)', (port) => `http://localhost:${port}/media.twiliocdn.com/ME1`, 'loopback'],
    ['a public-looking name that resolves to this machine', (port) => `https://media-store.example.com:${port}/ME1`, 'loopback'],
  ])("Twilio's redirect to %s: refused by the outbound policy, never fetched; the user is told and the text answered", async (_name, location, reason) => {
    const url = media().add(await photo(300, 200), 'image/jpeg', { behaviour: { kind: 'redirect-to', location: location(trap.port) } });
    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.lastUserText()).toContain('plan my trip from this');
        expect(request.lastUserText()).toContain('could not be downloaded (refused_redirect)');
        return { text: 'Happy to help with the trip.' };
      }),
    );
    expect(await send('plan my trip from this', [{ url, type: 'image/jpeg' }])).toBe("Happy to help with the trip.\n\nI couldn't download your photo. Please send it again.");
    expect((await rows())[0]).toMatchObject({ status: 'failed', problem: 'refused_redirect', sha256: null });
    // Twilio's API was asked (with the credentials); nothing else was contacted.
    expect(media().requests.map((request) => request.origin)).toEqual(['api']);
    expect(trap.connections).toBe(0);
    expect(harness.logs.lines.some((line) => line.msg === 'outbound connection refused: not a public address' && line.reason === reason)).toBe(true);
    expect(harness.logs.lines.some((line) => line.msg === 'media redirect refused by the outbound policy; not fetched')).toBe(true);
  });

  it('a slow trickle is cut off by MEDIA_TIMEOUT_MS', async () => {
    const url = media().add(await photo(300, 200), 'image/jpeg', { behaviour: { kind: 'trickle', intervalMs: 100 } });
    expect(await send('', [{ url, type: 'image/jpeg' }])).toBe("I couldn't download your photo. Please send it again.");
    expect((await rows())[0]).toMatchObject({ status: 'failed', problem: 'timeout' });
  });

  it('a 30 MB body with no or a lying Content-Length: reading stops at MEDIA_MAX_BYTES and the user is told', async () => {
    const huge = Buffer.concat([await photo(64, 64), randomBytes(30 * 1024 * 1024)]);
    const url = media().add(huge, 'image/jpeg', { behaviour: { kind: 'lying-length', contentLength: null } });
    expect(await send('', [{ url, type: 'image/jpeg' }])).toBe("I couldn't take your photo: it's over my 1 MB limit.");
    const [row] = await rows();
    expect(row).toMatchObject({ status: 'refused', problem: 'too_large' });
    expect(row!.sizeBytes).toBeGreaterThan(MAX_BYTES);
    expect(row!.sizeBytes).toBeLessThan(MAX_BYTES + 128 * 1024);
    // Herald hung up: the store never got to write the whole body.
    await expect.poll(() => media().bytesWritten.get(FakeTwilioMediaStore.sidOf(url)) ?? 0).toBeLessThan(huge.length);

  });

  it('a Content-Length that claims less than the 30 MB sent: only what it claims is read, then refused as damaged', async () => {
    const huge = Buffer.concat([await photo(1200, 900), randomBytes(30 * 1024 * 1024)]);
    const url = media().add(huge, 'image/jpeg', { behaviour: { kind: 'lying-length', contentLength: 4096 } });
    expect(await send('', [{ url, type: 'image/jpeg' }])).toBe("Your photo seems to be damaged, so I couldn't open it.");
    expect((await rows())[0]).toMatchObject({ status: 'refused', problem: 'corrupt', sizeBytes: 4096 });
  });

  it('a "JPEG" that is really an HTML page is not sent to the model', async () => {
    const url = media().add(HTML_PAGE, 'image/jpeg');
    expect(await send('', [{ url, type: 'image/jpeg' }])).toBe("I can't open your photo (JPEG). I can read photos (JPEG, PNG, WebP, GIF), PDFs and voice notes.");
    expect((await rows())[0]).toMatchObject({ status: 'refused', problem: 'unsupported', contentType: 'unknown' });
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('a corrupt PNG is refused as damaged', async () => {
    const url = media().add(await corruptPng(), 'image/png');
    expect(await send('', [{ url, type: 'image/png' }])).toBe("Your photo seems to be damaged, so I couldn't open it.");
    expect((await rows())[0]).toMatchObject({ status: 'refused', problem: 'corrupt', contentType: 'image/png' });
  });

  it("ten attachments (Twilio's maximum): each handled or refused by its type, in one reply (the contact card imported)", async () => {
    const attachments = [
      { url: media().add(await photo(400, 300), 'image/jpeg'), type: 'image/jpeg' },
      { url: media().add(await photo(300, 400), 'image/jpeg'), type: 'image/jpeg' },
      { url: media().add(await pdf(['Invoice 42']), 'application/pdf'), type: 'application/pdf' },
      { url: media().add(HTML_PAGE, 'image/jpeg'), type: 'image/jpeg' },
      { url: media().add(Buffer.from('BEGIN:VCARD\nVERSION:3.0\nFN:Dana\nEND:VCARD\n'), 'text/vcard'), type: 'text/vcard' },
      { url: media().add(await photo(200, 200), 'image/gif', { behaviour: { kind: 'status', status: 404 } }), type: 'image/gif' },
      { url: media().add(await corruptPng(), 'image/png'), type: 'image/png' },
      { url: media().add(await photo(250, 250), 'image/jpeg'), type: 'image/jpeg' },
      { url: media().add(randomBytes(2 * MAX_BYTES), 'video/mp4', { behaviour: { kind: 'lying-length', contentLength: null } }), type: 'video/mp4' },
      { url: media().add(await photo(350, 350), 'image/jpeg'), type: 'image/jpeg' },
    ];
    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.mediaBlocks().map((block) => block.type)).toEqual(['image', 'image', 'document', 'image', 'image']);
        expect(request.lastUserText()).toMatch(/Attachment a1[\s\S]*Attachment a2[\s\S]*Attachment a3[\s\S]*Attachment a8[\s\S]*Attachment a10/);
        return { text: 'Five of them are clear: three photos, a receipt photo and the invoice.' };
      }),
    );
    const reply = await send('sort these out please', attachments);
    expect(reply).toBe(
      [
        'Five of them are clear: three photos, a receipt photo and the invoice.',
        '',
        "I can't open attachment 4 (JPEG). I can read photos (JPEG, PNG, WebP, GIF), PDFs and voice notes.",
        'Saved to your contacts from attachment 5: 1 (1 new, 0 updated, 0 merged, 0 refused).',
        "I couldn't download attachment 6. Please send it again.",
        "Attachment 7 seems to be damaged, so I couldn't open it.",
        "I couldn't take attachment 9: it's over my 1 MB limit.",
      ].join('\n'),
    );
    expect(harness.twilio.messages.filter((message) => message.to === phone)).toHaveLength(1);
    expect((await rows()).map((row) => row.status)).toEqual(['ready', 'ready', 'ready', 'refused', 'ready', 'failed', 'refused', 'ready', 'refused', 'ready']);
  });

  it('with an API key pair configured, media is downloaded and deleted with the key, not the auth token', async () => {
    const key = { sid: `SK${'b'.repeat(32)}`, secret: 'media-key-secret' };
    const keyed = await HeraldHarness.start({ env: { TWILIO_API_KEY_SID: key.sid, TWILIO_API_KEY_SECRET: key.secret }, database: harness.database });
    try {
      keyed.twilio.media.addApiKey(key.sid, key.secret);
      const url = keyed.twilio.media.add(await photo(300, 300), 'image/jpeg');
      keyed.anthropic.enqueue({ text: 'Nice.' });
      await keyed.inbound({ from: '+16465559998', body: 'look', numMedia: 1, extra: { MediaUrl0: url, MediaContentType0: 'image/jpeg' } });
      expect((await keyed.repliesTo('+16465559998', 1))[0]!.body).toBe('Nice.');
      await expect.poll(() => keyed.twilio.media.requests.filter((request) => request.origin === 'api').map((request) => [request.method, request.authorization])).toEqual([
        ['GET', `Basic ${key.sid}`],
        ['DELETE', `Basic ${key.sid}`],
      ]);
    } finally {
      await keyed.close();
    }
  });

  it('media stays at Twilio when TWILIO_DELETE_MEDIA is false', async () => {
    const keeping = await HeraldHarness.start({ env: { TWILIO_DELETE_MEDIA: 'false' }, database: harness.database });
    try {
      const url = keeping.twilio.media.add(await photo(300, 300), 'image/jpeg');
      keeping.anthropic.enqueue({ text: 'Nice.' }, { text: 'You are welcome.' });
      await keeping.inbound({ from: '+16465559999', body: 'look', numMedia: 1, extra: { MediaUrl0: url, MediaContentType0: 'image/jpeg' } });
      await keeping.repliesTo('+16465559999', 1);
      // The user's next turn starts only after the first one released its media (or would have).
      await keeping.inbound({ from: '+16465559999', body: 'thanks' });
      await keeping.repliesTo('+16465559999', 2);
      expect(keeping.twilio.media.requests.filter((request) => request.method === 'DELETE')).toEqual([]);
      expect(keeping.twilio.media.has(FakeTwilioMediaStore.sidOf(url))).toBe(true);
    } finally {
      await keeping.close();
    }
  });
});
