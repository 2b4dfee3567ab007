/** A cookie to set in the browser: always HttpOnly and SameSite=Lax, scoped to `path`. */
export interface BrowserCookie {
  name: string;
  value: string;
  path: string;
  /** 0 deletes it. */
  maxAgeSeconds: number;
}

/**
 * The Set-Cookie header for a cookie: HttpOnly (no script reads it), SameSite=Lax (sent on a
 * top-level navigation back from another site, such as an OAuth redirect, never on a
 * cross-site form or fetch), Secure when Herald is served over https.
 */
export function serializeCookie(cookie: BrowserCookie, secure: boolean): string {
  if (!/^[\w-]+$/.test(cookie.name) || !/^[\w-]*$/.test(cookie.value) || !/^\/[\w/-]*$/.test(cookie.path)) {
    throw new Error('cookie name, value and path must be plain tokens');
  }
  return [`${cookie.name}=${cookie.value}`, `Path=${cookie.path}`, `Max-Age=${Math.max(0, Math.floor(cookie.maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');
}

/** The cookies a request carries, by name (the first of a repeated name wins, as browsers send the most specific path first). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (name && !(name in cookies)) cookies[name] = part.slice(at + 1).trim();
  }
  return cookies;
}
