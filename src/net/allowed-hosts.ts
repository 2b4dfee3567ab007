import { isIP } from 'node:net';
import { addressBytes, embeddedIpv4, inRange, parseCidr, type AddressBytes } from './address-ranges.js';

/** One CONNECT_ALLOWED_HOSTS entry: a host name, or a network (an address is a network of one). */
export type AllowedHostEntry =
  | { kind: 'name'; name: string; port?: number | undefined }
  | { kind: 'network'; bytes: AddressBytes; bits: number; port?: number | undefined };

/**
 * Reads a host as a URL's host would be read: lower case, IDN as punycode, IPv4 in any
 * notation (`2130706433`, `0x7f.1`, `127.1`) as dotted decimal, IPv6 compressed and without
 * brackets. This is the form checked and connected to, so a host cannot mean one address
 * to the check and another to the resolver. Undefined for anything that is not a host
 * (a port, a path, credentials, a zone id, nothing).
 */
export function canonicalHost(host: string): string | undefined {
  const text = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (text === '') return undefined;
  const ipv6 = isIP(text) === 6;
  // A port, a path, credentials: not a host (the URL parser would quietly drop a default port).
  if (!ipv6 && /[:/@?#\\[\]\s]/.test(text)) return undefined;
  const bracketed = ipv6 ? `[${text}]` : text;
  let url: URL;
  try {
    url = new URL(`http://${bracketed}/`);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.port || url.pathname !== '/' || url.search || url.hash) return undefined;
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Parses CONNECT_ALLOWED_HOSTS: comma-separated hosts (`caldav.home.lan`, `192.168.1.20`),
 * hosts with a port (`nas.home.lan:5232`, `[fd00::20]:993`) and networks in CIDR notation
 * (`10.0.0.0/8`, `fd00::/8`). Answers the entries, or the first entry that is none of these.
 */
export function parseAllowedHosts(value: string): { ok: true; entries: AllowedHostEntry[] } | { ok: false; entry: string } {
  const entries: AllowedHostEntry[] = [];
  for (const raw of value.split(',').map((part) => part.trim()).filter(Boolean)) {
    const entry = parseEntry(raw);
    if (!entry) return { ok: false, entry: raw };
    entries.push(entry);
  }
  return { ok: true, entries };
}

function parseEntry(raw: string): AllowedHostEntry | undefined {
  if (raw.includes('/')) {
    const network = parseCidr(raw);
    return network ? { kind: 'network', ...network } : undefined;
  }
  let host = raw;
  let port: number | undefined;
  const withPort = /^\[([^\]]+)\]:(\d{1,5})$/.exec(raw) ?? (isIP(raw) === 6 ? null : /^([^:[\]]+):(\d{1,5})$/.exec(raw));
  if (withPort) {
    host = withPort[1]!;
    port = Number(withPort[2]);
    if (port < 1 || port > 65_535) return undefined;
  }
  const canonical = canonicalHost(host);
  if (!canonical) return undefined;
  const bytes = isIP(canonical) ? addressBytes(canonical) : undefined;
  return bytes ? { kind: 'network', bytes, bits: bytes.length * 8, port } : { kind: 'name', name: canonical, port };
}

/**
 * The hosts and networks the operator lets users connect to although they are not on the
 * public internet (CONNECT_ALLOWED_HOSTS): a self-hoster's CalDAV or mail server on their
 * own network. A name entry allows that name (whatever it resolves to); a network entry
 * allows its addresses, whatever name led there. An entry with a port allows that port only.
 */
export class AllowedHosts {
  constructor(private readonly entries: readonly AllowedHostEntry[] = []) {}

  /** Whether the host name (canonical, see {@link canonicalHost}) is allowed at this port. */
  allowsName(name: string, port: number): boolean {
    return this.entries.some((entry) => entry.kind === 'name' && entry.name === name && (entry.port === undefined || entry.port === port));
  }

  /** Whether the IP address is in an allowed network at this port. */
  allowsAddress(address: string, port: number): boolean {
    const bytes = addressBytes(address);
    if (!bytes) return false;
    const ipv4 = embeddedIpv4(bytes);
    return this.entries.some(
      (entry) => entry.kind === 'network' && (entry.port === undefined || entry.port === port) && (inRange(bytes, entry) || (ipv4 !== undefined && inRange(ipv4, entry))),
    );
  }
}
