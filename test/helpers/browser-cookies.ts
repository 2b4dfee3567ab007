/**
 * A browser's cookie jar, as little of one as the connect flow needs: the cookies a response
 * set (Set-Cookie), sent back as a browser would on a request to `path`.
 */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  /** Keeps what a response (app.inject's, or fetch's headers) set; Max-Age=0 deletes. */
  take(headers: Record<string, unknown> | Headers): this {
    const raw = headers instanceof Headers ? headers.getSetCookie() : headers['set-cookie'];
    const lines = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
    for (const line of lines) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const path = attributes.find((attribute) => attribute.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      if (attributes.some((attribute) => attribute.toLowerCase() === 'max-age=0')) this.cookies.delete(name);
      else this.cookies.set(name, { value: pair!.slice(at + 1), path });
    }
    return this;
  }

  /** The Cookie header for a request to `url` (a path, or a full URL). */
  header(url: string): string {
    const path = url.startsWith('/') ? url : new URL(url).pathname;
    return [...this.cookies.entries()]
      .filter(([, cookie]) => path.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ');
  }

  /** The cookies by name (for calling the connect service directly). */
  all(): Record<string, string> {
    return Object.fromEntries([...this.cookies.entries()].map(([name, cookie]) => [name, cookie.value]));
  }
}
