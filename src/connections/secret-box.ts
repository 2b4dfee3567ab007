import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigurationError } from '../shared/errors.js';

/** A secret that cannot be read with the configured key: the wrong key, or damaged data. */
export class SecretKeyError extends ConfigurationError {}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts connected accounts' secrets at rest (AES-256-GCM) and signs Herald's own tokens,
 * with keys derived (HKDF) from the one HERALD_ENCRYPTION_KEY, each for its own purpose.
 * A sealed value names the key it was sealed with (a short fingerprint, not the key), so
 * reading it under another key is a clear error, never garbage: GCM's tag would refuse it
 * anyway, and the fingerprint says why.
 */
export class SecretBox {
  /** Names the key without revealing it: the first 8 hex characters of a hash of it. */
  readonly keyId: string;
  private readonly encryptionKey: Buffer;
  private readonly rootKey: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new ConfigurationError('HERALD_ENCRYPTION_KEY must be 32 bytes');
    this.rootKey = Buffer.from(key);
    this.keyId = createHash('sha256').update('herald key id').update(key).digest('hex').slice(0, 8);
    this.encryptionKey = this.derive('secrets at rest');
  }

  /** `v1.<keyId>.<iv>.<ciphertext+tag>`, base64url; a fresh random IV every time. */
  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`${VERSION}.${this.keyId}`));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.keyId, iv.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The plaintext; throws {@link SecretKeyError} for another key's or damaged data. */
  open(sealed: string): string {
    const [version, keyId, iv, body] = sealed.split('.');
    if (version !== VERSION || !keyId || !iv || !body) throw new SecretKeyError('A stored secret is not in a format Herald can read (it is damaged).');
    if (keyId !== this.keyId) {
      throw new SecretKeyError(
        `A stored secret was encrypted with a different HERALD_ENCRYPTION_KEY (key ${keyId}; the configured key is ${this.keyId}). Set the key it was saved with, or connect the account again.`,
      );
    }
    const data = Buffer.from(body, 'base64url');
    // A whole tag or nothing: GCM would otherwise accept a tag cut to 4 bytes, which can be guessed.
    if (data.length < TAG_BYTES) throw new SecretKeyError('A stored secret could not be decrypted: it was changed or damaged. Connect the account again.');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${VERSION}.${keyId}`));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError('A stored secret could not be decrypted: it was changed or damaged. Connect the account again.');
    }
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value));
  }

  openJson(sealed: string): unknown {
    return JSON.parse(this.open(sealed)) as unknown;
  }

  /** HMAC-SHA256 of `data` under the key derived for `purpose`, base64url. */
  sign(purpose: string, data: string): string {
    return createHmac('sha256', this.derive(`signing: ${purpose}`)).update(data, 'utf8').digest('base64url');
  }

  /** True when `signature` is `sign(purpose, data)` (constant time). */
  verify(purpose: string, data: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(purpose, data));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** A 32-byte key for one purpose: secrets, link signatures and feed tokens never share a key. */
  private derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.rootKey, Buffer.alloc(0), `herald ${purpose}`, 32));
  }
}
