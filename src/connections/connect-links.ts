import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import type { SecretBox } from './secret-box.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/** A link that may still be used, with what its page needs. */
export interface ConnectLinkRecord {
  id: string;
  userId: string;
  purpose: string;
  csrfToken: string;
  revision: number;
  expiresAt: Date;
  /** The owner's time zone, for the page's "this link stops working" line. */
  timezone: string;
  /** The owner's number (E.164): every connect page says, masked, whose Herald it connects to. */
  phone: string;
}

/** What a token leads to. Forged, malformed and unknown tokens are all just "invalid". */
export type LinkLookup = { kind: 'link'; link: ConnectLinkRecord } | { kind: 'invalid' } | { kind: 'expired' } | { kind: 'used' };

/** Settings. */
export interface ConnectLinkOptions {
  ttlMinutes: number;
  publicBaseUrl: string;
}

const SIGNING_PURPOSE = 'connect links';
const TOKEN_SHAPE = /^([0-9a-f-]{36})\.(\d{1,12})\.([\w-]{43})$/;

/**
 * Short-lived, single-use, signed links to `/connect/<token>` (calendar now, email next).
 * The token is `<link id>.<expiry>.<HMAC>`: a forged or altered one is refused before the
 * database, an expired one says so from its own signed expiry, and the row makes it
 * single-use (`usedAt`, set once, atomically). During OAuth the row also holds the state's
 * hash and the sealed PKCE verifier, so the callback finds its link and nothing else.
 */
export class ConnectLinks {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly options: ConnectLinkOptions,
  ) {}

  /** A new link for `purpose` ("google-calendar", "caldav-calendar"). */
  async issue(userId: string, purpose: string): Promise<{ url: string; expiresAt: Date }> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.options.ttlMinutes * 60_000);
    const row = await this.prisma.connectLink.create({ data: { userId, purpose, csrfToken: randomBytes(32).toString('base64url'), createdAt: now, expiresAt } });
    return { url: this.urlOf(row), expiresAt };
  }

  /** The link's URL again (its token is derived from the id and expiry, so it is the same one). */
  urlOf(link: { id: string; expiresAt: Date }): string {
    const body = `${link.id}.${Math.floor(link.expiresAt.getTime() / 1000)}`;
    return `${withoutTrailingSlashes(this.options.publicBaseUrl)}/connect/${body}.${this.box.sign(SIGNING_PURPOSE, body)}`;
  }

  /**
   * Turns an unused link to another purpose: a page that lets the user choose how to connect
   * ("email": Google or another mailbox) hands its link on to the chosen method. False when
   * the link was used meanwhile.
   */
  async repurpose(id: string, purpose: string): Promise<boolean> {
    const changed = await this.prisma.connectLink.updateMany({ where: { id, usedAt: null }, data: { purpose } });
    return changed.count === 1;
  }

  /** What the token leads to, checked in this order: signature, expiry, use. */
  async resolve(token: string): Promise<LinkLookup> {
    const match = TOKEN_SHAPE.exec(token);
    if (!match || !this.box.verify(SIGNING_PURPOSE, `${match[1]}.${match[2]}`, match[3]!)) return { kind: 'invalid' };
    if (Number(match[2]) * 1000 <= this.clock.now().getTime()) return { kind: 'expired' };
    return this.lookup({ id: match[1]! });
  }

  /** Moves the link's form revision on by compare-and-set: a replayed or stale submission gets false. */
  async advanceRevision(id: string, revision: number): Promise<boolean> {
    const moved = await this.prisma.connectLink.updateMany({ where: { id, revision, usedAt: null }, data: { revision: { increment: 1 } } });
    return moved.count === 1;
  }

  /** Starts OAuth for the link: a fresh state and PKCE verifier (S256 challenge), the state stored only as its hash. */
  async beginOAuth(id: string): Promise<{ state: string; codeChallenge: string }> {
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    await this.prisma.connectLink.update({ where: { id }, data: { oauthStateHash: hash(state), oauthVerifier: this.box.seal(verifier) } });
    return { state, codeChallenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  /**
   * Binds the link's consent to the browser about to be sent there: a fresh nonce for an
   * HttpOnly cookie, only its hash kept. The callback must bring it back
   * ({@link browserMatches}), so a consent URL forwarded to someone else connects nothing.
   */
  async bindBrowser(id: string): Promise<string> {
    const nonce = randomBytes(32).toString('base64url');
    await this.prisma.connectLink.update({ where: { id }, data: { oauthBrowserHash: hash(nonce) } });
    return nonce;
  }

  /** The link an OAuth callback's state belongs to, with its PKCE verifier and the hash of its browser's nonce. */
  async findByState(state: string): Promise<{ kind: 'link'; link: ConnectLinkRecord; verifier: string; browserHash: string | null } | Exclude<LinkLookup, { kind: 'link' }>> {
    if (!/^[\w-]{43}$/.test(state)) return { kind: 'invalid' };
    const found = await this.lookup({ oauthStateHash: hash(state) });
    if (found.kind !== 'link') return found;
    const row = await this.prisma.connectLink.findUniqueOrThrow({ where: { id: found.link.id }, select: { oauthVerifier: true, oauthBrowserHash: true } });
    if (!row.oauthVerifier) return { kind: 'invalid' };
    return { ...found, verifier: this.box.open(row.oauthVerifier), browserHash: row.oauthBrowserHash };
  }

  /** Whether a cookie's nonce is the one {@link bindBrowser} gave (constant time). */
  browserMatches(browserHash: string | null, nonce: string | undefined): boolean {
    if (!browserHash || !nonce) return false;
    const given = Buffer.from(hash(nonce));
    const expected = Buffer.from(browserHash);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Ends a consent under way (its state can no longer be redeemed); the link itself stays usable. */
  async abandonOAuth(id: string): Promise<void> {
    await this.prisma.connectLink.updateMany({ where: { id }, data: { oauthStateHash: null, oauthVerifier: null, oauthBrowserHash: null } });
  }

  /** Marks the link used; false when it already was (or has expired): only one use ever wins. */
  async consume(id: string): Promise<boolean> {
    const now = this.clock.now();
    const used = await this.prisma.connectLink.updateMany({ where: { id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now, oauthStateHash: null, oauthVerifier: null, oauthBrowserHash: null } });
    return used.count === 1;
  }

  private async lookup(where: { id: string } | { oauthStateHash: string }): Promise<LinkLookup> {
    const row = await this.prisma.connectLink.findFirst({ where, include: { user: { select: { timezone: true, phone: true } } } });
    if (!row) return { kind: 'invalid' };
    if (row.usedAt) return { kind: 'used' };
    if (row.expiresAt.getTime() <= this.clock.now().getTime()) return { kind: 'expired' };
    return {
      kind: 'link',
      link: { id: row.id, userId: row.userId, purpose: row.purpose, csrfToken: row.csrfToken, revision: row.revision, expiresAt: row.expiresAt, timezone: row.user.timezone, phone: row.user.phone },
    };
  }
}

function hash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
