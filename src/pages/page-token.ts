import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: 43 characters, 256 bits, unguessable. */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[\w-]{43}$/;

/** A new random token (for a page's URL, or its CSRF token). */
export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** True when `value` could be a token at all: anything else is turned away before the database. */
export function isTokenShaped(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/**
 * What the database stores instead of the URL token: its SHA-256. A leaked table (or a
 * backup) opens no page; a salt is unnecessary because the token itself is 256 random bits.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two secrets in constant time (for the CSRF token). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
