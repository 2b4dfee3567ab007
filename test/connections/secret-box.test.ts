import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEncryptionKey, resolveEncryptionKey } from '../../src/connections/encryption-key.js';
import { SecretBox, SecretKeyError } from '../../src/connections/secret-box.js';
import { capturingLogger } from '../helpers/herald-harness.js';

const key = (fill: number) => Buffer.alloc(32, fill);

describe('SecretBox: secrets at rest (AES-256-GCM)', () => {
  it('opens what it sealed, and the sealed text shows nothing of the secret', () => {
    const box = new SecretBox(key(1));
    const sealed = box.sealJson({ password: 'hunter2-app-password' });
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('hunter2');
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString('latin1')).not.toContain('hunter2');
    expect(box.openJson(sealed)).toEqual({ password: 'hunter2-app-password' });
    // A fresh IV every time: the same secret never seals to the same text.
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('a wrong key is a clear error naming both keys (never garbage)', () => {
    const sealed = new SecretBox(key(1)).seal('refresh-token');
    const other = new SecretBox(key(2));
    expect(() => other.open(sealed)).toThrow(SecretKeyError);
    expect(() => other.open(sealed)).toThrow(`A stored secret was encrypted with a different HERALD_ENCRYPTION_KEY (key ${new SecretBox(key(1)).keyId}; the configured key is ${other.keyId}). Set the key it was saved with, or connect the account again.`);
  });

  it('a changed or damaged secret is refused', () => {
    const box = new SecretBox(key(1));
    const [version, keyId, iv, body] = box.seal('refresh-token').split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([version, keyId, iv, flipped.toString('base64url')].join('.'))).toThrow('A stored secret could not be decrypted: it was changed or damaged. Connect the account again.');
    expect(() => box.open('garbage')).toThrow(SecretKeyError);
  });

  it('refuses a sealed value shorter than the 16-byte tag (GCM would accept a tag cut to 4 bytes)', () => {
    const box = new SecretBox(key(1));
    const [version, keyId, iv, body] = box.seal('').split('.') as [string, string, string, string];
    // The empty secret's body is its tag alone; its first 4 bytes are a valid truncated GCM tag.
    const cut = Buffer.from(body, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.open([version, keyId, iv, cut].join('.'))).toThrow('A stored secret could not be decrypted: it was changed or damaged. Connect the account again.');
    expect(() => box.open([version, keyId, iv, ''].join('.'))).toThrow(SecretKeyError);
    expect(box.open([version, keyId, iv, body].join('.'))).toBe('');
  });

  it('signs per purpose: a link signature is not a feed token', () => {
    const box = new SecretBox(key(1));
    const signature = box.sign('connect links', 'abc');
    expect(box.verify('connect links', 'abc', signature)).toBe(true);
    expect(box.verify('calendar feed', 'abc', signature)).toBe(false);
    expect(box.verify('connect links', 'abd', signature)).toBe(false);
    expect(new SecretBox(key(2)).verify('connect links', 'abc', signature)).toBe(false);
  });
});

describe('the encryption key', () => {
  const directories: string[] = [];
  afterAll(async () => {
    await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
  });

  it('reads 64 hex characters or base64', () => {
    expect(parseEncryptionKey('ab'.repeat(32))).toEqual(Buffer.alloc(32, 0xab));
    expect(parseEncryptionKey(key(7).toString('base64'))).toEqual(key(7));
    expect(() => parseEncryptionKey('too short')).toThrow('HERALD_ENCRYPTION_KEY must be 32 bytes');
  });

  it('outside production without HERALD_ENCRYPTION_KEY: a development key made once in DATA_DIR (0600) and reused', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'herald-key-'));
    directories.push(dataDir);
    const { logger, logs } = capturingLogger();
    const first = await resolveEncryptionKey(undefined, dataDir, logger);
    const second = await resolveEncryptionKey(undefined, dataDir, logger);
    expect(first).toEqual(second);
    expect(first).toHaveLength(32);
    expect((await stat(path.join(dataDir, 'encryption-key'))).mode & 0o777).toBe(0o600);
    expect(logs.lines.filter((line) => /development key/.test(line.msg ?? ''))).toHaveLength(1);
    expect(logs.text()).not.toContain((await readFile(path.join(dataDir, 'encryption-key'), 'utf8')).trim());
    expect(await resolveEncryptionKey(key(9).toString('base64'), dataDir, logger)).toEqual(key(9));
  });
});
