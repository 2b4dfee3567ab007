/**
 * Small string helpers that run in one pass, for text users, mailboxes, address books, web pages
 * and models control. Each replaces a regular expression whose time grew with the square of its
 * input (`/\/+$/` on "////…x", `/^[^\s@]+@[^\s@]+\.[^\s@]+$/` on "a@a.a.a.…": issue 32), so
 * nothing here can stall the process whatever it is given.
 */

/** `text` without the run of `characters` at its end ("https://x.test//" → "https://x.test"). */
export function trimEndOf(text: string, characters: string): string {
  let end = text.length;
  while (end > 0 && characters.includes(text.charAt(end - 1))) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the run of `characters` at its start. */
export function trimStartOf(text: string, characters: string): string {
  let start = 0;
  while (start < text.length && characters.includes(text.charAt(start))) start += 1;
  return start === 0 ? text : text.slice(start);
}

/** A base URL without its trailing slashes, ready for "/path" to be appended. */
export function withoutTrailingSlashes(url: string): string {
  return trimEndOf(url, '/');
}

/** The longest email address there can be (RFC 5321: 64 + "@" + 255, limited to 254 in a path). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * True for something shaped like an email address: at most 254 characters, no whitespace,
 * exactly one "@" with something before it, and a domain with a dot that is neither its first
 * nor its last character. The shape only: whether it exists is the mail server's to say.
 */
export function isEmailAddress(text: string): boolean {
  if (text.length === 0 || text.length > MAX_EMAIL_LENGTH) return false;
  const at = text.indexOf('@');
  if (at <= 0 || at !== text.lastIndexOf('@')) return false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // Whitespace (ASCII and the Unicode spaces a copy-paste brings).
    if (code <= 0x20 || code === 0x85 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000) return false;
  }
  const domain = text.slice(at + 1);
  const dot = domain.indexOf('.');
  return dot > 0 && !domain.endsWith('.');
}
