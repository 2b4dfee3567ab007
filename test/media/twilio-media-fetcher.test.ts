import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { TwilioMediaFetcher } from '../../src/media/twilio-media-fetcher.js';
import { AllowedHosts, parseAllowedHosts } from '../../src/net/allowed-hosts.js';
import { OutboundPolicy } from '../../src/net/outbound-policy.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { mappedResolver } from '../helpers/outbound.js';
import { RecordingServer } from '../helpers/recording-server.js';

/**
 * The media download under the outbound policy, at the edge of what it lets through: Twilio's
 * redirect to a store on a private address is followed only where CONNECT_ALLOWED_HOSTS
 * allows it, and then without the account's credentials.
 */

const PIXELS = Buffer.from('not really a photo, but bytes');
const logger = createLogger({ level: 'silent' });

describe('TwilioMediaFetcher through the outbound policy', () => {
  let twilio: FakeTwilioServer;
  let store: RecordingServer;

  beforeAll(async () => {
    [twilio, store] = await Promise.all([FakeTwilioServer.start(), RecordingServer.start((_request, response) => response.writeHead(200, { 'content-type': 'image/jpeg' }).end(PIXELS))]);
  });
  afterAll(async () => {
    await Promise.all([twilio.close(), store.close()]);
  });

  /** A fetcher whose policy allows `allowed` (CONNECT_ALLOWED_HOSTS) and resolves the store's public-looking name to this machine. */
  function fetcher(allowed: string): TwilioMediaFetcher {
    const parsed = parseAllowedHosts(allowed);
    if (!parsed.ok) throw new Error(parsed.entry);
    const policy = new OutboundPolicy({ allowedHosts: new AllowedHosts(parsed.entries), resolver: mappedResolver({ 'store.example.com': ['127.0.0.1'] }) });
    return new TwilioMediaFetcher({ apiBaseUrl: twilio.url, username: twilio.accountSid, password: twilio.authToken }, { maxBytes: 1024, timeoutMs: 3000 }, policy, logger);
  }

  it('follows a redirect to a private address that CONNECT_ALLOWED_HOSTS allows, without the credentials; refuses the same redirect otherwise', async () => {
    const url = twilio.media.add(PIXELS, 'image/jpeg', { behaviour: { kind: 'redirect-to', location: `http://store.example.com:${store.port}/ME1` } });
    // Tests run shuffled: only this test's requests count.
    const twilioBefore = twilio.media.requests.length;

    expect(await fetcher('').fetch(url)).toMatchObject({ ok: false, problem: 'refused_redirect' });
    expect(await fetcher(`store.example.com:${store.port + 1}`).fetch(url)).toMatchObject({ ok: false, problem: 'refused_redirect' });
    expect(store.connections).toBe(0);

    const fetched = await fetcher(`store.example.com:${store.port}`).fetch(url);
    expect(fetched).toMatchObject({ ok: true, sizeBytes: PIXELS.length, contentType: 'image/jpeg' });
    expect(store.requests).toEqual([expect.objectContaining({ url: '/ME1', host: `store.example.com:${store.port}`, authorization: undefined })]);
    // Twilio's API got the credentials, each time.
    expect(twilio.media.requests.slice(twilioBefore).map((request) => request.authorization)).toEqual([`Basic ${twilio.accountSid}`, `Basic ${twilio.accountSid}`, `Basic ${twilio.accountSid}`]);
  });

  it('cuts the body at maxBytes, and refuses a body declared larger before reading it', async () => {
    const big = twilio.media.add(Buffer.alloc(4096, 1), 'image/jpeg');
    expect(await fetcher('').fetch(big)).toMatchObject({ ok: false, problem: 'too_large', sizeBytes: 4096 });
    const chunked = twilio.media.add(Buffer.alloc(200_000, 1), 'image/jpeg', { behaviour: { kind: 'lying-length', contentLength: null } });
    const cut = await fetcher('').fetch(chunked);
    expect(cut).toMatchObject({ ok: false, problem: 'too_large' });
    expect(cut.ok ? 0 : cut.sizeBytes).toBeGreaterThan(1024);
    expect(cut.ok ? 0 : cut.sizeBytes).toBeLessThan(200_000);
  });
});
