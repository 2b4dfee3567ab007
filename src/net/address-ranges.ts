import { isIPv4, isIPv6 } from 'node:net';

/**
 * What an IP address is, for deciding whether a user may point Herald at it: `public`, or
 * the name of the reserved range it is in (for logs; users are never told which).
 */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade NAT'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'not an address';

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
export type AddressBytes = Uint8Array;

interface Range {
  bytes: AddressBytes;
  bits: number;
  kind: Exclude<AddressKind, 'public' | 'not an address'>;
}

const range = (cidr: string, kind: Range['kind']): Range => {
  const parsed = parseCidr(cidr);
  if (!parsed) throw new Error(`bad built-in range ${cidr}`);
  return { ...parsed, kind };
};

/**
 * IPv4 ranges that are not the public internet (IANA's special-purpose registry, RFC 6890
 * and later). 169.254.0.0/16 holds the cloud metadata services (169.254.169.254), and
 * 100.64.0.0/10 Alibaba's (100.100.100.200); 192.0.0.0/24 Oracle's (192.0.0.192).
 */
const IPV4_RANGES: Range[] = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

/**
 * IPv6 ranges inside global unicast (2000::/3) that are not the public internet; anything
 * outside 2000::/3 is refused as well (loopback, unique-local, link-local, multicast…).
 */
const IPV6_RANGES: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fc00::/7', 'unique-local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'link-local'),
  range('ff00::/8', 'multicast'),
  range('2001::/23', 'reserved'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
];
const GLOBAL_UNICAST = range('2000::/3', 'reserved');

/** Forms of IPv6 that carry an IPv4 address: the IPv4 address is what is reached. */
const IPV4_IN_IPV6: Array<{ prefix: Range; offset: number }> = [
  // IPv4-mapped (::ffff:127.0.0.1, also written ::ffff:7f00:1).
  { prefix: range('::ffff:0:0/96', 'reserved'), offset: 12 },
  // NAT64's well-known prefix: a NAT64 gateway on the deployment's network reaches the IPv4 address.
  { prefix: range('64:ff9b::/96', 'reserved'), offset: 12 },
  // 6to4: the IPv4 address of the relay's far end.
  { prefix: range('2002::/16', 'reserved'), offset: 2 },
];

/**
 * Whether an IP address is on the public internet, and if not which kind of range it is
 * in. IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that IPv4
 * address; the IPv4-compatible form (::a.b.c.d) and everything else outside 2000::/3 are
 * reserved.
 */
export function classifyAddress(address: string): AddressKind {
  const bytes = addressBytes(address);
  if (!bytes) return 'not an address';
  return classifyBytes(bytes);
}

function classifyBytes(bytes: AddressBytes): AddressKind {
  if (bytes.length === 4) return IPV4_RANGES.find((candidate) => inRange(bytes, candidate))?.kind ?? 'public';
  for (const { prefix, offset } of IPV4_IN_IPV6) {
    if (inRange(bytes, prefix)) return classifyBytes(bytes.subarray(offset, offset + 4));
  }
  const special = IPV6_RANGES.find((candidate) => inRange(bytes, candidate));
  if (special) return special.kind;
  return inRange(bytes, GLOBAL_UNICAST) ? 'public' : 'reserved';
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), if it carries one. */
export function embeddedIpv4(bytes: AddressBytes): AddressBytes | undefined {
  if (bytes.length !== 16) return undefined;
  const form = IPV4_IN_IPV6.find(({ prefix }) => inRange(bytes, prefix));
  return form ? bytes.subarray(form.offset, form.offset + 4) : undefined;
}

/** Whether `bytes` (same family) starts with the range's first `bits` bits. */
export function inRange(bytes: AddressBytes, candidate: { bytes: AddressBytes; bits: number }): boolean {
  if (bytes.length !== candidate.bytes.length) return false;
  const whole = Math.floor(candidate.bits / 8);
  for (let index = 0; index < whole; index += 1) if (bytes[index] !== candidate.bytes[index]) return false;
  const rest = candidate.bits % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole]! ^ candidate.bytes[whole]!) & mask) === 0;
}

/** "10.0.0.0/8", "fd00::/8": the network's bytes and prefix length; undefined when malformed. */
export function parseCidr(cidr: string): { bytes: AddressBytes; bits: number } | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim());
  if (!match) return undefined;
  const bytes = addressBytes(match[1]!);
  const bits = Number(match[2]);
  if (!bytes || bits > bytes.length * 8) return undefined;
  return { bytes, bits };
}

/** An IP address (dotted IPv4, or IPv6 in any notation without a zone) as bytes; undefined for anything else. */
export function addressBytes(address: string): AddressBytes | undefined {
  const text = address.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(text)) return Uint8Array.from(text.split('.').map(Number));
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string): number[] => {
    if (part === '') return [];
    const pieces = part.split(':');
    const last = pieces.at(-1)!;
    // A trailing dotted quad is the last two groups.
    if (last.includes('.')) {
      const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
      return [...pieces.slice(0, -1).map((piece) => parseInt(piece, 16)), (a << 8) | b, (c << 8) | d];
    }
    return pieces.map((piece) => parseInt(piece, 16));
  };
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** Whether the address is this machine: 127.0.0.0/8, ::1, or 127.0.0.0/8 written IPv4-mapped. */
export function isLoopbackAddress(address: string): boolean {
  const bytes = addressBytes(address);
  if (!bytes) return false;
  const ipv4 = bytes.length === 4 ? bytes : inRange(bytes, IPV4_IN_IPV6[0]!.prefix) ? bytes.subarray(12) : undefined;
  if (ipv4) return ipv4[0] === 127;
  return bytes.every((byte, index) => byte === (index === 15 ? 1 : 0));
}
