import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectLinks } from '../../src/connections/connect-links.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Connect links and OAuth state against their near misses (issue 32 item 8), on real Postgres:
 * a token with one character of its signature or expiry changed, the second it expires and the
 * one before, a state or browser nonce one character off, a link used twice.
 */
const TTL_MINUTES = 15;

describe('connect links: near misses', () => {
  let database: TestDatabase;
  let links: ConnectLinks;
  const box = new SecretBox(Buffer.alloc(32, 9));
  const clock = new ManualClock('2030-05-01T10:00:00Z');
  let userId: string;

  beforeAll(async () => {
    database = await createTestDatabase(4);
    links = new ConnectLinks(database.prisma, box, clock, { ttlMinutes: TTL_MINUTES, publicBaseUrl: 'https://herald.test/base//' });
    userId = (await database.prisma.user.create({ data: { phone: '+14155550961', timezone: 'Europe/Paris', updatedAt: clock.now() } })).id;
  });
  beforeEach(() => {
    clock.set('2030-05-01T10:00:00Z');
  });
  afterAll(async () => {
    await database.drop();
  });

  async function issue(purpose = 'caldav-calendar') {
    const { url, expiresAt } = await links.issue(userId, purpose);
    return { url, expiresAt, token: url.split('/connect/')[1]! };
  }
  const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

  it('a link is /connect/<id>.<expiry seconds>.<signature> under the public base, lasting the TTL', async () => {
    const { url, expiresAt, token } = await issue();
    expect(expiresAt).toEqual(new Date(clock.now().getTime() + TTL_MINUTES * 60_000));
    expect(url.startsWith('https://herald.test/base/connect/')).toBe(true);
    const [id, expiry, signature] = token.split('.');
    expect(expiry).toBe(String(expiresAt.getTime() / 1000));
    expect(signature).toBe(box.sign('connect links', `${id}.${expiry}`));
    const found = await links.resolve(token);
    expect(found).toMatchObject({ kind: 'link', link: { id, userId, purpose: 'caldav-calendar', revision: 0, expiresAt, timezone: 'Europe/Paris', phone: '+14155550961' } });
    if (found.kind === 'link') expect(found.link.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(links.urlOf({ id: id!, expiresAt })).toBe(url);
  });

  it('a token with any one character changed, added or dropped is invalid', async () => {
    const { token } = await issue();
    const [id, expiry, signature] = token.split('.') as [string, string, string];
    const misses = [
      `${id}.${expiry}.${flip(signature, 42)}`,
      `${id}.${expiry}.${flip(signature, 0)}`,
      `${id}.${String(Number(expiry) + 3600)}.${signature}`,
      `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}.${expiry}.${signature}`,
      `${id}.${expiry}.${signature}A`,
      `${id}.${expiry}.${signature.slice(1)}`,
      `${id}.${expiry}`,
      `x${token}`,
      `${token}.`,
      '',
    ];
    for (const miss of misses) expect(await links.resolve(miss), miss).toEqual({ kind: 'invalid' });
    // A forged token for a link that does not exist (signed right: only the key's holder could) is invalid too.
    const ghost = `00000000-0000-7000-8000-000000000000.${expiry}`;
    expect(await links.resolve(`${ghost}.${box.sign('connect links', ghost)}`)).toEqual({ kind: 'invalid' });
  });

  it('works until the second it expires, and says expired from then on', async () => {
    const { token, expiresAt } = await issue();
    clock.set(expiresAt.getTime() - 1);
    expect((await links.resolve(token)).kind).toBe('link');
    clock.set(expiresAt);
    expect(await links.resolve(token)).toEqual({ kind: 'expired' });
  });

  it('is consumed once, and not at or after its expiry; then it says used', async () => {
    const first = await issue();
    const found = await links.resolve(first.token);
    if (found.kind !== 'link') throw new Error('expected a link');
    clock.set(first.expiresAt);
    expect(await links.consume(found.link.id)).toBe(false);
    clock.set(first.expiresAt.getTime() - 1);
    expect(await links.consume(found.link.id)).toBe(true);
    expect(await links.consume(found.link.id)).toBe(false);
    expect(await links.resolve(first.token)).toEqual({ kind: 'used' });
    expect(await links.repurpose(found.link.id, 'email')).toBe(false);
    expect(await links.advanceRevision(found.link.id, 0)).toBe(false);
  });

  it('moves the form revision by compare-and-set, and repurposes only an unused link', async () => {
    const { token } = await issue('email');
    const found = await links.resolve(token);
    if (found.kind !== 'link') throw new Error('expected a link');
    expect(await links.advanceRevision(found.link.id, 1)).toBe(false);
    expect(await links.advanceRevision(found.link.id, 0)).toBe(true);
    expect(await links.advanceRevision(found.link.id, 0)).toBe(false);
    expect(await links.repurpose(found.link.id, 'google-calendar')).toBe(true);
    expect(await links.resolve(token)).toMatchObject({ kind: 'link', link: { purpose: 'google-calendar', revision: 1 } });
  });

  it('OAuth state: found by the exact state only, with the PKCE verifier its challenge was made from; one character off is invalid', async () => {
    const { token } = await issue('google-calendar');
    const found = await links.resolve(token);
    if (found.kind !== 'link') throw new Error('expected a link');
    const { state, codeChallenge } = await links.beginOAuth(found.link.id);
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const byState = await links.findByState(state);
    if (byState.kind !== 'link') throw new Error(`expected the link, got ${byState.kind}`);
    expect(byState.link.id).toBe(found.link.id);
    expect(createHash('sha256').update(byState.verifier).digest('base64url')).toBe(codeChallenge);
    expect(byState.browserHash).toBeNull();
    // Only the state's hash is stored.
    const row = await database.prisma.connectLink.findUniqueOrThrow({ where: { id: found.link.id } });
    expect(row.oauthStateHash).toBe(createHash('sha256').update(state).digest('hex'));
    expect(row.oauthVerifier).not.toContain(byState.verifier);
    for (const miss of [flip(state, 0), flip(state, 42), `${state}A`, state.slice(1), '', `${state.slice(0, 42)}=`]) expect(await links.findByState(miss)).toEqual({ kind: 'invalid' });
  });

  it('OAuth state of an expired, used or abandoned consent is refused', async () => {
    const { token, expiresAt } = await issue('google-calendar');
    const found = await links.resolve(token);
    if (found.kind !== 'link') throw new Error('expected a link');
    const { state } = await links.beginOAuth(found.link.id);
    clock.set(expiresAt);
    expect(await links.findByState(state)).toEqual({ kind: 'expired' });
    clock.set(expiresAt.getTime() - 1);
    await links.abandonOAuth(found.link.id);
    expect(await links.findByState(state)).toEqual({ kind: 'invalid' });
    const again = await links.beginOAuth(found.link.id);
    expect((await links.findByState(again.state)).kind).toBe('link');
    // A state whose verifier is gone (a row written half-way) is invalid.
    await database.prisma.connectLink.update({ where: { id: found.link.id }, data: { oauthVerifier: null } });
    expect(await links.findByState(again.state)).toEqual({ kind: 'invalid' });
    const third = await links.beginOAuth(found.link.id);
    expect(await links.consume(found.link.id)).toBe(true);
    expect(await links.findByState(third.state)).toEqual({ kind: 'invalid' });
  });

  it('the browser nonce matches exactly, and never when either side is missing', async () => {
    const { token } = await issue('google-calendar');
    const found = await links.resolve(token);
    if (found.kind !== 'link') throw new Error('expected a link');
    await links.beginOAuth(found.link.id);
    const nonce = await links.bindBrowser(found.link.id);
    const row = await database.prisma.connectLink.findUniqueOrThrow({ where: { id: found.link.id } });
    expect(row.oauthBrowserHash).toBe(createHash('sha256').update(nonce).digest('hex'));
    expect(links.browserMatches(row.oauthBrowserHash, nonce)).toBe(true);
    for (const miss of [flip(nonce, 0), flip(nonce, 42), `${nonce}A`, nonce.slice(1), '']) expect(links.browserMatches(row.oauthBrowserHash, miss)).toBe(false);
    expect(links.browserMatches(null, nonce)).toBe(false);
    expect(links.browserMatches('', nonce)).toBe(false);
    expect(links.browserMatches(row.oauthBrowserHash, undefined)).toBe(false);
    expect(links.browserMatches(row.oauthBrowserHash!.slice(1), nonce)).toBe(false);
  });
});
