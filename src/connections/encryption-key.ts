import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logging/logger.js';
import { ConfigurationError } from '../shared/errors.js';

/** HERALD_ENCRYPTION_KEY's bytes: 64 hex characters, or base64 (standard or URL-safe) of 32 bytes. */
export function parseEncryptionKey(value: string): Buffer {
  const text = value.trim();
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new ConfigurationError('HERALD_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

const DEVELOPMENT_KEY_FILE = 'encryption-key';

/**
 * The key to encrypt secrets with: HERALD_ENCRYPTION_KEY, or (never in production, where
 * the configuration refuses to start without it) a development key made once and kept in
 * DATA_DIR beside the embedded Postgres, so `npm start` needs no set-up and connections
 * saved locally stay readable across restarts.
 */
export async function resolveEncryptionKey(configured: string | undefined, dataDir: string, logger: Logger): Promise<Buffer> {
  if (configured) return parseEncryptionKey(configured);
  const file = path.resolve(dataDir, DEVELOPMENT_KEY_FILE);
  try {
    return parseEncryptionKey(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  // "wx": two processes starting together never overwrite each other's key.
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  logger.warn({ file }, 'HERALD_ENCRYPTION_KEY is not set: connected accounts are encrypted with a development key kept in DATA_DIR (set the variable in production)');
  return parseEncryptionKey(await readFile(file, 'utf8'));
}
