import { createHash, randomInt } from 'node:crypto';

/** Crockford-style alphabet: no 0/O, 1/I/L or U, so a code read aloud or retyped survives. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 8;

/** How long an invite code works. */
export const INVITE_CODE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A fresh code, shown as "K7PM-Q2XD" (about 39 bits: with the JOIN attempt limit, not guessable). */
export function newInviteCode(): string {
  let code = '';
  for (let index = 0; index < LENGTH; index += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** The code as typed, canonical: upper case, without spaces or dashes ("k7pm q2xd" is "K7PMQ2XD"). */
export function normalizeInviteCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]+/g, '');
}

/** What is stored: the SHA-256 of the canonical code, so the table alone lets nobody in. */
export function hashInviteCode(typed: string): string {
  return createHash('sha256').update(normalizeInviteCode(typed)).digest('hex');
}

/**
 * The code of a `JOIN <code>` message, or undefined when the message is anything else.
 * The code part is loose on purpose (any case, spaces, dashes): a typo must fail like a
 * wrong code, not turn the message into an ordinary one.
 */
export function joinCode(body: string): string | undefined {
  const match = /^\s*join\s+([A-Z0-9][A-Z0-9 -]{0,40})[.!\s]*$/i.exec(body);
  return match ? match[1]!.trim() : undefined;
}
