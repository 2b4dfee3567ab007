import { createHash, createHmac } from 'node:crypto';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox, SecretKeyError } from '../../src/connections/secret-box.js';
import { DEV_ACCOUNT_SID, DevMediaStore } from '../../src/dev/dev-media-store.js';
import { metricsRoute, sameSecret as sameMetricsSecret } from '../../src/http/routes/metrics.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { hashToken, isTokenShaped, newToken, sameSecret } from '../../src/pages/page-token.js';
import { buttonPayload, readButtonPayload } from '../../src/questions/button-payload.js';

/**
 * Every secret comparison against its near miss (issue 32 item 8): the right value with one
 * character changed, one added, one dropped, and the empty string; a signature made for another
 * purpose or key; a credential in another scheme.
 */
const nearMisses = (secret: string) => [`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`, `${secret}x`, secret.slice(0, -1), `x${secret.slice(1)}`, '', secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase()];

describe('the metrics token', () => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  const app = Fastify();

  beforeAll(async () => {
    await app.register(metricsRoute, { metrics: createMetrics({ processMetrics: false }), token: TOKEN });
  });
  afterAll(async () => {
    await app.close();
  });
  const scrape = (authorization?: string, url = '/metrics') => app.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });

  it('compares whole secrets: equal is equal, any near miss is not', () => {
    expect(sameMetricsSecret(TOKEN, TOKEN)).toBe(true);
    for (const miss of nearMisses(TOKEN)) expect(sameMetricsSecret(miss, TOKEN)).toBe(false);
  });

  it('serves the bearer of the token (any case of "Bearer", spaces around), uncached', async () => {
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER   ${TOKEN}  `]) {
      const response = await scrape(header);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['content-type']).toContain('text/plain');
      expect(response.body).toContain('# HELP');
    }
  });

  it('refuses every near miss with 401 and a Bearer challenge', async () => {
    for (const header of [...nearMisses(TOKEN).map((miss) => `Bearer ${miss}`), `Bearer ${TOKEN} extra`, `Bearer${TOKEN}`, `Token ${TOKEN}`, TOKEN, `xBearer ${TOKEN}`, undefined]) {
      const response = await scrape(header);
      expect(response.statusCode, String(header)).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="herald-metrics"');
      expect(response.body).toBe('Unauthorized');
    }
  });

  it('refuses any query string, even with the right header; a bare "?" is no query', async () => {
    const refused = await scrape(`Bearer ${TOKEN}`, '/metrics?x');
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Credentials in the query string are refused');
    expect((await scrape(`Bearer ${TOKEN}`, '/metrics?')).statusCode).toBe(200);
  });
});

describe('page tokens and CSRF tokens', () => {
  it('compares whole secrets', () => {
    const token = newToken();
    expect(sameSecret(token, token)).toBe(true);
    for (const miss of nearMisses(token)) expect(sameSecret(miss, token)).toBe(false);
    expect(sameSecret('é', 'e\u0301')).toBe(false);
  });

  it('are 43 base64url characters, and only such a string is taken to the database', () => {
    const tokens = Array.from({ length: 50 }, () => newToken());
    for (const token of tokens) expect(isTokenShaped(token)).toBe(true);
    expect(new Set(tokens).size).toBe(50);
    const token = tokens[0]!;
    for (const miss of [`${token}A`, token.slice(1), `${token.slice(1)}=`, `${token.slice(1)}+`, `${token.slice(1)}/`, ` ${token.slice(1)}`, `${token.slice(0, 42)}\n`]) expect(isTokenShaped(miss)).toBe(false);
    expect(isTokenShaped(`-_${'A'.repeat(41)}`)).toBe(true);
  });

  it('are stored as their SHA-256, hex', () => {
    expect(hashToken('abc')).toBe(createHash('sha256').update('abc', 'utf8').digest('hex'));
  });
});

describe('SecretBox signatures', () => {
  const box = new SecretBox(Buffer.alloc(32, 3));

  it('verifies its own signature for the same purpose and data only', () => {
    const signature = box.sign('connect links', 'data');
    expect(box.verify('connect links', 'data', signature)).toBe(true);
    for (const miss of nearMisses(signature)) expect(box.verify('connect links', 'data', miss)).toBe(false);
    expect(box.verify('connect links', 'datA', signature)).toBe(false);
    expect(box.verify('connect link', 'data', signature)).toBe(false);
    expect(new SecretBox(Buffer.alloc(32, 4)).verify('connect links', 'data', signature)).toBe(false);
    // An HMAC under the root key itself is no signature: each purpose has its own derived key.
    expect(box.verify('connect links', 'data', createHmac('sha256', Buffer.alloc(32, 3)).update('data').digest('base64url'))).toBe(false);
  });

  it('names its key by 8 hex characters of a hash, and refuses a key that is not 32 bytes', () => {
    expect(box.keyId).toBe(createHash('sha256').update('herald key id').update(Buffer.alloc(32, 3)).digest('hex').slice(0, 8));
    expect(() => new SecretBox(Buffer.alloc(31))).toThrow('HERALD_ENCRYPTION_KEY must be 32 bytes');
    expect(() => new SecretBox(Buffer.alloc(33))).toThrow('HERALD_ENCRYPTION_KEY must be 32 bytes');
  });

  it('opens only whole, well-formed sealed values: a missing part, another version, a tag a byte short', () => {
    const sealed = box.seal('secret');
    const [version, keyId, iv, body] = sealed.split('.') as [string, string, string, string];
    expect(box.open(sealed)).toBe('secret');
    expect(box.openJson(box.sealJson({ a: [1] }))).toEqual({ a: [1] });
    for (const damaged of [`v2.${keyId}.${iv}.${body}`, `${version}..${iv}.${body}`, `${version}.${keyId}..${body}`, `${version}.${keyId}.${iv}.`, `${version}.${keyId}.${iv}`]) {
      expect(() => box.open(damaged)).toThrow(SecretKeyError);
      expect(() => box.open(damaged)).toThrow('not in a format Herald can read');
    }
    // Exactly a tag's length and nothing else (an empty secret) opens; a byte less is refused before GCM.
    const empty = box.seal('').split('.');
    expect(Buffer.from(empty[3]!, 'base64url')).toHaveLength(16);
    expect(box.open(empty.join('.'))).toBe('');
    const short = Buffer.from(empty[3]!, 'base64url').subarray(1).toString('base64url');
    expect(() => box.open([empty[0], empty[1], empty[2], short].join('.'))).toThrow('it was changed or damaged');
    // Additional data binds the key id: the same ciphertext under another id is refused, with the keys named.
    expect(() => box.open(`${version}.00000000.${iv}.${body}`)).toThrow(`key 00000000; the configured key is ${box.keyId}`);
  });
});

describe('the dev phone’s media credentials', () => {
  it('accepts exactly the dev account’s Basic credentials', () => {
    const store = new DevMediaStore();
    const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
    expect(store.authorizes(basic(`${DEV_ACCOUNT_SID}:${store.secret}`))).toBe(true);
    for (const miss of nearMisses(store.secret)) expect(store.authorizes(basic(`${DEV_ACCOUNT_SID}:${miss}`))).toBe(false);
    expect(store.authorizes(basic(`AC${'1'.repeat(32)}:${store.secret}`))).toBe(false);
    expect(store.authorizes(`Bearer ${Buffer.from(`${DEV_ACCOUNT_SID}:${store.secret}`).toString('base64')}`)).toBe(false);
    expect(store.authorizes(`basic ${Buffer.from(`${DEV_ACCOUNT_SID}:${store.secret}`).toString('base64')}`)).toBe(false);
    expect(store.authorizes(undefined)).toBe(false);
    expect(store.authorizes('')).toBe(false);
    expect(new DevMediaStore().authorizes(basic(`${DEV_ACCOUNT_SID}:${store.secret}`))).toBe(false);
  });

  it('verifies a store URL’s signature for that file only', () => {
    const store = new DevMediaStore();
    const sid = store.put(Buffer.from('x'), 'image/png');
    const signature = store.sign(sid);
    expect(store.verify(sid, signature)).toBe(true);
    for (const miss of nearMisses(signature)) expect(store.verify(sid, miss)).toBe(false);
    expect(store.verify(store.put(Buffer.from('y'), 'image/png'), signature)).toBe(false);
    expect(new DevMediaStore().verify(sid, signature)).toBe(false);
  });

  it('keeps a file thirty minutes to the millisecond, then forgets it', () => {
    let now = 1_000_000;
    const store = new DevMediaStore(() => now);
    const sid = store.put(Buffer.from('x'), 'text/plain');
    expect(sid).toMatch(/^ME[0-9a-f]{32}$/);
    now += 30 * 60 * 1000;
    expect(store.get(sid)).toMatchObject({ contentType: 'text/plain' });
    now += 1;
    expect(store.has(sid)).toBe(false);
  });
});

describe('one-tap button payloads', () => {
  it('are Herald’s only in exactly the shape it makes', () => {
    expect(readButtonPayload(` ${buttonPayload('k7m2qx2a', '99')}\n`)).toEqual({ shortId: 'k7m2qx2a', answer: '99' });
    expect(readButtonPayload('herald:k7m2qx2a:no')).toEqual({ shortId: 'k7m2qx2a', answer: 'no' });
    expect(readButtonPayload('herald:k7m2qx2a:9')).toEqual({ shortId: 'k7m2qx2a', answer: '9' });
    for (const miss of ['herald:k7m2qx2a:100', 'herald:k7m2qx2a:01', 'herald:k7m2qx2:yes', 'herald:k7m2qx2ab:yes', 'xherald:k7m2qx2a:yes', 'herald:k7m2qx2a:yesx', 'herald:k7m2qx2a:', 'herald:k7m2-x2a:yes', null]) {
      expect(readButtonPayload(miss)).toBeUndefined();
    }
  });
});
