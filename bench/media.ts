/**
 * Media benchmark (issue 20): what reading a photo costs Herald, and what it saves.
 *
 * - Download + downscale of a 4 MB, 12-megapixel phone JPEG: TwilioMediaFetcher against the
 *   fake Twilio through the outbound policy (Basic auth, the 307 to its media store on
 *   another origin, the body read up to the limit and hashed), then recognising it and
 *   sharp's resize to 1568 px and re-encode. p50 and p95; target p95 under 400 ms on this machine.
 * - Bytes uploaded and image tokens per photo, before and after downscaling (tokens as the
 *   fake Anthropic API bills them, which is the API's documented width × height / 750 after
 *   its own resize to 1568 px). Correctness: the downscaled photo is under the API's 5 MB
 *   limit and its long edge is 1568 px.
 * - The webhook's acknowledgement with three attachments named, against one without: media
 *   is fetched by the turn, never in the request, so the two must stay alike.
 */
import { performance } from 'node:perf_hooks';
import twilio from 'twilio';
import { loadConfig } from '../src/config/config.js';
import { classifyMedia } from '../src/media/media-kind.js';
import { IMAGE_MAX_EDGE_PX, prepareImage } from '../src/media/image-preparer.js';
import { TwilioMediaFetcher } from '../src/media/twilio-media-fetcher.js';
import { OutboundPolicy } from '../src/net/outbound-policy.js';
import { createHerald } from '../src/runtime.js';
import { inspectMediaBlocks, API_IMAGE_MAX_BYTES } from '../test/fakes/anthropic/media-blocks.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import { photo } from '../test/helpers/media-fixtures.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { connectDatabase } from '../src/db/database.js';
import { banner, ms, percentile, table } from './support/report.js';
import { sampleMs } from './support/sampling.js';

const RUNS = 40;
const WARM_UP = 5;
const DOWNSCALE_P95_TARGET_MS = 400;
const WEBHOOK_RUNS = 300;
const BASE_URL = 'https://herald.bench';

/** A 4000 × 3000 JPEG of about 4 MB, like a 12-megapixel phone camera's. */
async function phonePhoto(): Promise<Buffer> {
  for (const quality of [92, 88, 84, 80, 75]) {
    const jpeg = await photo(4000, 3000, quality);
    if (jpeg.length <= 4.4 * 1024 * 1024) return jpeg;
  }
  return photo(4000, 3000, 70);
}

async function imageTokens(bytes: Buffer, mediaType: string): Promise<number> {
  const inspection = await inspectMediaBlocks({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: mediaType, data: bytes.toString('base64') } }] }] });
  if (inspection.violation) throw new Error(inspection.violation);
  return inspection.tokens;
}

export const mediaBenchmark: Benchmark = {
  name: 'media',
  description: 'Photos: download + downscale of a 4 MB 12-megapixel JPEG, bytes and tokens before/after, webhook ack with media',
  async run({ postgres, logger, print }) {
    print(banner(`Media (${RUNS} downloads after ${WARM_UP} warm-up; ${WEBHOOK_RUNS} webhooks each way)`));
    const checks: Check[] = [];
    const original = await phonePhoto();
    const twilioFake = await FakeTwilioServer.start();
    try {
      // 1. Download + downscale.
      const fetcher = new TwilioMediaFetcher({ apiBaseUrl: twilioFake.url, username: twilioFake.accountSid, password: twilioFake.authToken }, { maxBytes: 10 * 1024 * 1024, timeoutMs: 20_000 }, new OutboundPolicy(), logger);
      const url = twilioFake.media.add(original, 'image/jpeg');
      let prepared: Awaited<ReturnType<typeof prepareImage>> | undefined;
      const downloads: number[] = [];
      const downscales: number[] = [];
      const total = await sampleMs(RUNS, WARM_UP, async (index) => {
        const started = performance.now();
        const fetched = await fetcher.fetch(url);
        if (!fetched.ok) throw new Error(`download failed: ${fetched.problem}`);
        const downloaded = performance.now();
        const kind = await classifyMedia(fetched.bytes, 'image/jpeg');
        if (kind.kind !== 'image') throw new Error(`not recognised as an image: ${kind.mediaType}`);
        prepared = await prepareImage(fetched.bytes);
        if (index >= 0) {
          downloads.push(downloaded - started);
          downscales.push(performance.now() - downloaded);
        }
      });
      if (!prepared || 'problem' in prepared) throw new Error('the photo could not be prepared');
      const p95 = percentile(total, 0.95);
      print(
        table(
          ['4 MB 12 Mpx JPEG', 'p50 ms', 'p95 ms'],
          [
            ['download (auth, redirect, read, SHA-256)', ms(percentile(downloads, 0.5)), ms(percentile(downloads, 0.95))],
            ['recognise + downscale + re-encode', ms(percentile(downscales, 0.5)), ms(percentile(downscales, 0.95))],
            ['total', ms(percentile(total, 0.5)), ms(p95)],
          ],
        ),
      );
      checks.push({ name: 'download + downscale p95', target: `< ${DOWNSCALE_P95_TARGET_MS} ms`, measured: `${ms(p95)} ms`, pass: p95 < DOWNSCALE_P95_TARGET_MS, kind: 'target' });

      // 2. Bytes and tokens, before and after.
      const before = { bytes: original.length, base64: Buffer.byteLength(original.toString('base64')), tokens: await imageTokens(original, 'image/jpeg') };
      const after = { bytes: prepared.data.length, base64: Buffer.byteLength(prepared.data.toString('base64')), tokens: await imageTokens(prepared.data, prepared.mediaType) };
      print(
        table(
          ['per photo', 'pixels', 'bytes', 'base64 uploaded', 'image tokens'],
          [
            ['as sent by the phone', '4000 × 3000', before.bytes, before.base64, before.tokens],
            ['as Herald sends it', `${prepared.width} × ${prepared.height}`, after.bytes, after.base64, after.tokens],
          ],
        ),
      );
      checks.push({ name: 'downscaled photo: long edge', target: `${IMAGE_MAX_EDGE_PX} px`, measured: `${Math.max(prepared.width, prepared.height)} px`, pass: Math.max(prepared.width, prepared.height) === IMAGE_MAX_EDGE_PX, kind: 'correctness' });
      checks.push({ name: 'downscaled photo: under the API limit', target: `< ${API_IMAGE_MAX_BYTES / 1024 / 1024} MB`, measured: `${(after.bytes / 1024).toFixed(0)} kB`, pass: after.bytes < API_IMAGE_MAX_BYTES, kind: 'correctness' });

      // 3. The webhook's ack with and without attachments (media waits for the turn).
      const info = await postgres.createMigratedDatabase('media', logger);
      const database = connectDatabase(info.url, 5);
      const config = loadConfig({
        PUBLIC_BASE_URL: BASE_URL,
        TWILIO_ACCOUNT_SID: twilioFake.accountSid,
        TWILIO_AUTH_TOKEN: twilioFake.authToken,
        TWILIO_SMS_FROM: '+15005550006',
        TWILIO_API_BASE_URL: twilioFake.url,
        WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000',
        NEW_USERS_PER_HOUR: '100000',
        HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      });
      const herald = await createHerald({ config, logger, database, recoveryIntervalMs: 0, leaseSweepIntervalMs: 0 });
      try {
        let sequence = 0;
        const post = async (attachments: number) => {
          sequence += 1;
          const sid = `${attachments > 0 ? 'MM' : 'SM'}${String(sequence).padStart(32, '0')}`;
          const form: Record<string, string> = { MessageSid: sid, AccountSid: twilioFake.accountSid, From: `+1415555${String(sequence % 10_000).padStart(4, '0')}`, To: '+15005550006', Body: attachments > 0 ? 'add this' : 'hello', NumMedia: String(attachments) };
          for (let index = 0; index < attachments; index += 1) {
            form[`MediaUrl${index}`] = `${twilioFake.url}/2010-04-01/Accounts/${twilioFake.accountSid}/Messages/${sid}/Media/ME${String(sequence * 10 + index).padStart(32, '0')}`;
            form[`MediaContentType${index}`] = 'image/jpeg';
          }
          const signature = twilio.getExpectedTwilioSignature(twilioFake.authToken, `${BASE_URL}/twilio/messages`, form);
          const response = await herald.app.inject({ method: 'POST', url: '/twilio/messages', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, payload: new URLSearchParams(form).toString() });
          if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`);
        };
        // Interleaved, so both see the same database and the same load on the machine.
        const plain: number[] = [];
        const withMedia: number[] = [];
        for (let index = -30; index < WEBHOOK_RUNS; index += 1) {
          for (const [attachments, samples] of [[0, plain], [3, withMedia]] as const) {
            const started = performance.now();
            await post(attachments);
            if (index >= 0) samples.push(performance.now() - started);
          }
        }
        print(
          table(
            ['webhook ack (inject, no workers)', 'p50 ms', 'p95 ms'],
            [
              ['text only', ms(percentile(plain, 0.5)), ms(percentile(plain, 0.95))],
              ['text + 3 attachments named', ms(percentile(withMedia, 0.5)), ms(percentile(withMedia, 0.95))],
            ],
          ),
        );
        const stored = await database.prisma.messageMedia.count();
        checks.push({ name: 'webhook with media: attachments stored, none fetched', target: `${(WEBHOOK_RUNS + 30) * 3} rows, 0 downloads`, measured: `${stored} rows, ${twilioFake.media.requests.length - (RUNS + WARM_UP) * 2} downloads`, pass: stored === (WEBHOOK_RUNS + 30) * 3 && twilioFake.media.requests.length === (RUNS + WARM_UP) * 2, kind: 'correctness' });
        const ratio = percentile(withMedia, 0.5) / percentile(plain, 0.5);
        checks.push({ name: 'webhook ack p50 with media vs without', target: '< 1.5×', measured: `${ratio.toFixed(2)}×`, pass: ratio < 1.5, kind: 'target' });
      } finally {
        await herald.stop(0);
        await database.close();
      }
    } finally {
      await twilioFake.close();
    }
    print('download = TwilioMediaFetcher against the fake Twilio on loopback (so network time is near zero); tokens = width × height / 750 after the API\'s own resize');
    return { checks };
  },
};
