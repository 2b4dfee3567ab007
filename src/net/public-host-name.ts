import { isIP } from 'node:net';
import { canonicalHost } from './allowed-hosts.js';

/** The longest DNS name (RFC 1035: 253 characters without the root's dot). */
const MAX_HOST_NAME_LENGTH = 253;
/** The longest DNS label. */
const MAX_LABEL_LENGTH = 63;

/**
 * Top-level names that never lead to a site on the public internet: the special-use names of
 * RFC 6761 and later (`localhost`, `test`, `invalid`, `example`, `local` for mDNS, `onion`,
 * `alt`, `internal` for private networks, `arpa` for reverse lookups and `home.arpa`), and
 * the private-network names ICANN never delegates (`lan`, `home`, `corp`, `intranet`, `private`).
 */
const RESERVED_TOP_LEVEL = new Set(['localhost', 'test', 'invalid', 'example', 'local', 'onion', 'alt', 'internal', 'arpa', 'lan', 'home', 'corp', 'intranet', 'private']);

/**
 * The host as a DNS name of the public internet (lower case, punycode, no trailing dot), or
 * undefined for anything else: an IP address in any spelling a URL accepts (`127.0.0.1`,
 * `2130706433`, `0x7f.1`, `[::1]`), `localhost`, a single label (`intranet`), a reserved or
 * private-use name (`printer.local`, `db.internal`, `site.test`), or something that is not
 * a host at all. Only the name is judged; nothing is resolved. For lists of domains handed
 * to someone else's fetcher (the model provider's web fetch), where an address or a name
 * only a private network knows has no business.
 */
export function publicHostName(host: string): string | undefined {
  // Capped before anything reads it: a DNS name is at most 253 characters (and a root dot).
  if (host.length === 0 || host.length > MAX_HOST_NAME_LENGTH + 1) return undefined;
  const canonical = canonicalHost(host);
  if (!canonical || isIP(canonical) !== 0) return undefined;
  const name = canonical.endsWith('.') ? canonical.slice(0, -1) : canonical;
  if (name.length === 0 || name.length > MAX_HOST_NAME_LENGTH) return undefined;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every(isDnsLabel)) return undefined;
  const top = labels.at(-1)!;
  // A numeric top level is an address to a URL parser, never a name.
  if (/^\d+$/.test(top) || RESERVED_TOP_LEVEL.has(top)) return undefined;
  return name;
}

/** Letters, digits and hyphens, 1 to 63 of them, not starting or ending with a hyphen (punycode `xn--` included). */
function isDnsLabel(label: string): boolean {
  if (label.length === 0 || label.length > MAX_LABEL_LENGTH || label.startsWith('-') || label.endsWith('-')) return false;
  for (let index = 0; index < label.length; index += 1) {
    const code = label.charCodeAt(index);
    const letterOrDigit = (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
    if (!letterOrDigit && code !== 0x2d) return false;
  }
  return true;
}
