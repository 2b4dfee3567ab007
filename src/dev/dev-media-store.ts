import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The account SID the dev phone's media URLs name (Twilio's documented test account shape). */
export const DEV_ACCOUNT_SID = `AC${'0'.repeat(32)}`;
/** Where the dev phone's Twilio-like media API lives on Herald itself. */
export const DEV_TWILIO_PREFIX = '/dev/twilio';

/** One file the dev phone or `npm run chat` attached. */
interface StoredMedia {
  bytes: Buffer;
  contentType: string;
  storedAt: number;
}

/** How long an attached file waits for its turn to read it. */
const TTL_MS = 30 * 60 * 1000;
/** The most the store holds at once; the oldest files go first. */
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;

/**
 * Files attached in the dev phone or `npm run chat`, served to Herald the way Twilio serves
 * media (routes in src/http/routes/dev-phone.ts): a media URL on Herald's own Twilio-like
 * API that needs HTTP Basic credentials (this store's account and secret) and redirects to
 * a signed, credential-free store URL; a DELETE removes it. So local media goes through the
 * very download path, credentials and limits a real number's does. Memory only, this
 * process only, and files expire.
 */
export class DevMediaStore {
  /** The "auth token" of the dev account: only this process knows it. */
  readonly secret = randomBytes(24).toString('base64url');
  private readonly files = new Map<string, StoredMedia>();
  private readonly storeKey = randomBytes(32);

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps a file; returns its media SID (ME…). */
  put(bytes: Buffer, contentType: string): string {
    this.expire();
    const sid = `ME${randomBytes(16).toString('hex')}`;
    this.files.set(sid, { bytes, contentType, storedAt: this.now() });
    let total = [...this.files.values()].reduce((sum, file) => sum + file.bytes.length, 0);
    for (const [oldest, file] of this.files) {
      if (total <= MAX_TOTAL_BYTES) break;
      this.files.delete(oldest);
      total -= file.bytes.length;
    }
    return sid;
  }

  get(sid: string): StoredMedia | undefined {
    this.expire();
    return this.files.get(sid);
  }

  has(sid: string): boolean {
    return this.get(sid) !== undefined;
  }

  delete(sid: string): boolean {
    return this.files.delete(sid);
  }

  /** Whether HTTP Basic credentials are the dev account's. */
  authorizes(header: string | undefined): boolean {
    if (!header?.startsWith('Basic ')) return false;
    const expected = Buffer.from(`${DEV_ACCOUNT_SID}:${this.secret}`);
    const given = Buffer.from(Buffer.from(header.slice(6), 'base64').toString('utf8'));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** A signature for a store URL, as Twilio's media store signs its own. */
  sign(sid: string): string {
    return createSignature(this.storeKey, sid);
  }

  verify(sid: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(sid));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private expire(): void {
    const cutoff = this.now() - TTL_MS;
    for (const [sid, file] of this.files) if (file.storedAt < cutoff) this.files.delete(sid);
  }
}

function createSignature(key: Buffer, sid: string): string {
  return createHmac('sha256', key).update(sid).digest('base64url');
}
