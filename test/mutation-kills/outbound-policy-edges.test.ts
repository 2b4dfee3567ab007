import { describe, expect, it } from 'vitest';
import { addressBytes, classifyAddress, embeddedIpv4, inRange, isLoopbackAddress, parseCidr } from '../../src/net/address-ranges.js';
import { AllowedHosts, canonicalHost, parseAllowedHosts } from '../../src/net/allowed-hosts.js';
import { OUTBOUND_REFUSED_MESSAGE, OutboundPolicy, OutboundRefusedError, PLAIN_HTTP_REFUSED_MESSAGE, pinnedLookup, type ResolvedAddress } from '../../src/net/outbound-policy.js';
import { mappedResolver } from '../helpers/outbound.js';

/**
 * The outbound-address policy at the edges of every range (issue 32 item 8): the first and
 * last address of each reserved range and the public address one past each end, the prefix
 * lengths that are not whole bytes, and the allow-list and its ports exactly.
 */
describe('every reserved IPv4 range, at both ends and one past them', () => {
  it.each([
    ['0.0.0.0', 'unspecified'], ['0.255.255.255', 'unspecified'], ['1.0.0.0', 'public'],
    ['9.255.255.255', 'public'], ['10.0.0.0', 'private'], ['10.255.255.255', 'private'], ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'], ['100.64.0.0', 'carrier-grade NAT'], ['100.127.255.255', 'carrier-grade NAT'], ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'], ['127.0.0.0', 'loopback'], ['127.255.255.255', 'loopback'], ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'], ['169.254.0.0', 'link-local'], ['169.254.255.255', 'link-local'], ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'], ['172.16.0.0', 'private'], ['172.31.255.255', 'private'], ['172.32.0.0', 'public'],
    ['191.255.255.255', 'public'], ['192.0.0.0', 'reserved'], ['192.0.0.255', 'reserved'], ['192.0.1.0', 'public'],
    ['192.0.2.0', 'documentation'], ['192.0.2.255', 'documentation'], ['192.0.3.0', 'public'],
    ['192.88.98.255', 'public'], ['192.88.99.0', 'reserved'], ['192.88.99.255', 'reserved'], ['192.88.100.0', 'public'],
    ['192.167.255.255', 'public'], ['192.168.0.0', 'private'], ['192.168.255.255', 'private'], ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'], ['198.18.0.0', 'reserved'], ['198.19.255.255', 'reserved'], ['198.20.0.0', 'public'],
    ['198.51.99.255', 'public'], ['198.51.100.0', 'documentation'], ['198.51.100.255', 'documentation'], ['198.51.101.0', 'public'],
    ['203.0.112.255', 'public'], ['203.0.113.0', 'documentation'], ['203.0.113.255', 'documentation'], ['203.0.114.0', 'public'],
    ['223.255.255.255', 'public'], ['224.0.0.0', 'multicast'], ['239.255.255.255', 'multicast'], ['240.0.0.0', 'reserved'], ['255.255.255.254', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('IPv6, at the edges of its ranges', () => {
  it.each([
    ['::', 'unspecified'], ['::1', 'loopback'], ['::2', 'reserved'], ['0:0:0:0:0:0:0:1', 'loopback'],
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'], ['2000::', 'public'], ['3ffe:ffff::1', 'public'], ['4000::', 'reserved'],
    ['fbff:ffff::1', 'reserved'], ['fc00::', 'unique-local'], ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'], ['fe00::1', 'reserved'],
    ['fe7f:ffff::1', 'reserved'], ['fe80::', 'link-local'], ['febf:ffff::1', 'link-local'], ['fec0::', 'link-local'], ['feff:ffff::1', 'link-local'],
    ['ff00::', 'multicast'], ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
    ['2000:ffff::1', 'public'], ['2001::', 'reserved'], ['2001:1ff:ffff::1', 'reserved'], ['2001:200::', 'public'],
    ['2001:db7:ffff:ffff::1', 'public'], ['2001:db8::', 'documentation'], ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'], ['2001:db9::', 'public'],
    ['3ffe:ffff:ffff:ffff::1', 'public'], ['3fff::', 'documentation'], ['3fff:fff:ffff::1', 'documentation'], ['3fff:1000::', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    // IPv4-mapped, in both spellings, and one bit off its prefix.
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:8.8.8.8', 'public'], ['::ffff:10.0.0.1', 'private'], ['::fffe:7f00:1', 'reserved'], ['0:0:0:0:1:ffff:7f00:1', 'reserved'],
    // NAT64's well-known prefix, and the same suffix under another prefix.
    ['64:ff9b::10.0.0.1', 'private'], ['64:ff9b::8.8.8.8', 'public'], ['64:ff9b:1::8.8.8.8', 'reserved'], ['64:ff9a::8.8.8.8', 'reserved'],
    // 6to4: the IPv4 address in bytes 2-5.
    ['2002:a00:1::', 'private'], ['2002:808:808::', 'public'], ['2002:7f00:1:ffff::1', 'loopback'], ['2003:a00:1::', 'public'], ['2001:ffff:a00:1::', 'public'],
  ])('%s (IPv4 inside) is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('the embedded IPv4 address is the one each form carries, and an address without one has none', () => {
    expect([...embeddedIpv4(addressBytes('::ffff:1.2.3.4')!)!]).toEqual([1, 2, 3, 4]);
    expect([...embeddedIpv4(addressBytes('64:ff9b::5.6.7.8')!)!]).toEqual([5, 6, 7, 8]);
    expect([...embeddedIpv4(addressBytes('2002:90a:b0c::')!)!]).toEqual([9, 10, 11, 12]);
    expect(embeddedIpv4(addressBytes('2606:4700::1')!)).toBeUndefined();
    expect(embeddedIpv4(addressBytes('1.2.3.4')!)).toBeUndefined();
  });
});

describe('reading addresses and networks', () => {
  it('reads every IPv6 spelling as the same 16 bytes, with brackets and spaces around', () => {
    const expected = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02, 0x03, 0x04];
    for (const spelling of ['2001:db8::102:304', '2001:db8::1.2.3.4', '2001:0db8:0:0:0:0:0102:0304', '[2001:db8::102:304]', ' 2001:DB8::102:304 ']) expect([...addressBytes(spelling)!], spelling).toEqual(expected);
    expect([...addressBytes('1::')!]).toEqual([0, 1, ...Array<number>(14).fill(0)]);
    expect([...addressBytes('::')!]).toEqual(Array<number>(16).fill(0));
    expect([...addressBytes('ff:1::ab00')!]).toEqual([0, 0xff, 0, 1, ...Array<number>(10).fill(0), 0xab, 0]);
    expect([...addressBytes(' 10.20.30.40 ')!]).toEqual([10, 20, 30, 40]);
  });

  it.each(['', 'localhost', '1.2.3', '1.2.3.256', '::1%eth0', 'fe80::1%1', '[10.0.0.1', 'x::1', '10.0.0.1/8'])('%j is not an address', (text) => {
    expect(addressBytes(text)).toBeUndefined();
    expect(classifyAddress(text)).toBe('not an address');
  });

  it('reads a network as its bytes and prefix; a prefix longer than the address, or none, is no network', () => {
    expect(parseCidr(' 10.0.0.0/8 ')).toEqual({ bytes: Uint8Array.from([10, 0, 0, 0]), bits: 8 });
    expect(parseCidr('1.2.3.4/32')?.bits).toBe(32);
    expect(parseCidr('::/128')?.bits).toBe(128);
    expect(parseCidr('::/0')?.bits).toBe(0);
    for (const bad of ['1.2.3.4/33', '::/129', '10.0.0.0/', '10.0.0.0/1000', '/8', '10.0.0.0', 'x/8', '10.0.0.0/8/8']) expect(parseCidr(bad), bad).toBeUndefined();
  });

  it('compares the prefix bit by bit, also inside a byte, and never across families', () => {
    const network = parseCidr('100.64.0.0/10')!;
    expect(inRange(Uint8Array.from([100, 64, 0, 0]), network)).toBe(true);
    expect(inRange(Uint8Array.from([100, 127, 255, 255]), network)).toBe(true);
    expect(inRange(Uint8Array.from([100, 128, 0, 0]), network)).toBe(false);
    expect(inRange(Uint8Array.from([100, 63, 255, 255]), network)).toBe(false);
    expect(inRange(Uint8Array.from([101, 64, 0, 0]), network)).toBe(false);
    const odd = parseCidr('10.0.0.1/31')!;
    expect(inRange(Uint8Array.from([10, 0, 0, 0]), odd)).toBe(true);
    expect(inRange(Uint8Array.from([10, 0, 0, 2]), odd)).toBe(false);
    expect(inRange(Uint8Array.from([200, 1, 2, 3]), parseCidr('0.0.0.0/0')!)).toBe(true);
    expect(inRange(addressBytes('::ffff:10.0.0.1')!, parseCidr('10.0.0.0/8')!)).toBe(false);
  });

  it('tells this machine’s addresses, and only them', () => {
    for (const address of ['127.0.0.1', '127.255.255.255', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:2']) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['128.0.0.1', '126.0.0.1', '::2', '1::1', '::ffff:128.0.0.1', '::fffe:127.0.0.1', '10.0.0.1', 'localhost', '', '0.0.0.0', '::']) expect(isLoopbackAddress(address), address).toBe(false);
  });
});

describe('the allow-list', () => {
  it('reads hosts as a URL does, and refuses anything that is more than a host', () => {
    expect(canonicalHost(' NAS.Home.LAN ')).toBe('nas.home.lan');
    expect(canonicalHost('[::1]')).toBe('::1');
    expect(canonicalHost('0:0::1')).toBe('::1');
    expect(canonicalHost('0x7f.1')).toBe('127.0.0.1');
    expect(canonicalHost('bücher.example')).toBe('xn--bcher-kva.example');
    for (const bad of ['', '  ', 'host:80', 'user@host', 'host/path', 'host?x', 'host#x', 'a b', 'host\\x', 'host]']) expect(canonicalHost(bad), bad).toBeUndefined();
  });

  it('takes entries with ports (1-65535) and networks, and names the first bad one', () => {
    const parsed = parseAllowedHosts(' nas.home.lan:5232 , [fd00::20]:993, 10.0.0.0/8, 192.168.1.5, ::1, ,');
    expect(parsed).toEqual({
      ok: true,
      entries: [
        { kind: 'name', name: 'nas.home.lan', port: 5232 },
        { kind: 'network', bytes: addressBytes('fd00::20'), bits: 128, port: 993 },
        { kind: 'network', bytes: Uint8Array.from([10, 0, 0, 0]), bits: 8 },
        { kind: 'network', bytes: Uint8Array.from([192, 168, 1, 5]), bits: 32, port: undefined },
        { kind: 'network', bytes: addressBytes('::1'), bits: 128, port: undefined },
      ],
    });
    expect(parseAllowedHosts('a.lan:1').ok).toBe(true);
    expect(parseAllowedHosts('a.lan:65535').ok).toBe(true);
    expect(parseAllowedHosts('ok.lan, a.lan:0')).toEqual({ ok: false, entry: 'a.lan:0' });
    expect(parseAllowedHosts('a.lan:65536')).toEqual({ ok: false, entry: 'a.lan:65536' });
    expect(parseAllowedHosts('10.0.0.0/33')).toEqual({ ok: false, entry: '10.0.0.0/33' });
    expect(parseAllowedHosts('user@a.lan')).toEqual({ ok: false, entry: 'user@a.lan' });
    expect(parseAllowedHosts('')).toEqual({ ok: true, entries: [] });
  });

  it('allows a name at its port only, a network’s addresses (IPv4 inside IPv6 too) at its port only', () => {
    const parsed = parseAllowedHosts('nas.lan:5232, any.lan, 10.1.2.3:993, 192.168.0.0/16');
    if (!parsed.ok) throw new Error(parsed.entry);
    const allowed = new AllowedHosts(parsed.entries);
    expect(allowed.allowsName('nas.lan', 5232)).toBe(true);
    expect(allowed.allowsName('nas.lan', 5233)).toBe(false);
    expect(allowed.allowsName('any.lan', 1)).toBe(true);
    expect(allowed.allowsName('other.lan', 5232)).toBe(false);
    expect(allowed.allowsAddress('10.1.2.3', 993)).toBe(true);
    expect(allowed.allowsAddress('10.1.2.3', 994)).toBe(false);
    expect(allowed.allowsAddress('10.1.2.4', 993)).toBe(false);
    expect(allowed.allowsAddress('192.168.255.255', 1)).toBe(true);
    expect(allowed.allowsAddress('::ffff:10.1.2.3', 993)).toBe(true);
    expect(allowed.allowsAddress('64:ff9b::192.168.4.4', 80)).toBe(true);
    expect(allowed.allowsAddress('192.169.0.1', 80)).toBe(false);
    expect(allowed.allowsAddress('not-an-address', 80)).toBe(false);
    // A name entry allows no address, and a network entry no name.
    expect(new AllowedHosts([{ kind: 'name', name: '10.1.2.3' }]).allowsAddress('10.1.2.3', 80)).toBe(false);
    expect(new AllowedHosts().allowsAddress('10.1.2.3', 80)).toBe(false);
  });
});

describe('the policy', () => {
  const resolver = mappedResolver({ 'one.example': ['93.184.215.14'], 'both.example': ['93.184.215.14', '2606:2800:21f::1'], 'lan.example': ['192.168.1.9'], 'empty.example': [] });

  it('refuses what is not a host, localhost names unless vouched for, and names that do not exist, with the one message', async () => {
    const policy = new OutboundPolicy({ resolver });
    for (const [host, reason] of [['a b', 'not a host'], ['localhost', 'loopback'], ['db.localhost', 'loopback'], ['missing.example', 'no such host'], ['empty.example', 'no such host'], ['lan.example', 'private']] as const) {
      const checked = await policy.check(host, 443, 'user');
      expect(checked, host).toMatchObject({ ok: false, error: { reason, message: OUTBOUND_REFUSED_MESSAGE } });
    }
    // "notlocalhost" is an ordinary name.
    expect((await new OutboundPolicy({ resolver: mappedResolver({ notlocalhost: ['93.184.215.14'] }) }).check('notlocalhost', 443, 'user')).ok).toBe(true);
    expect(new OutboundRefusedError('plain http').message).toBe(PLAIN_HTTP_REFUSED_MESSAGE);
  });

  it('each of the resolver’s "no such name" codes is a refusal; any other failure is passed on', async () => {
    for (const code of ['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']) {
      const policy = new OutboundPolicy({ resolver: async () => Promise.reject(Object.assign(new Error(code), { code })) });
      expect(await policy.check('x.example', 443, 'user'), code).toMatchObject({ ok: false, error: { reason: 'no such host' } });
    }
    const failing = new OutboundPolicy({ resolver: async () => Promise.reject(new Error('socket closed')) });
    await expect(failing.check('x.example', 443, 'user')).rejects.toThrow('socket closed');
  });

  it('an address literal is checked without the resolver, keeping its family; a public one is not vouched for', async () => {
    const policy = new OutboundPolicy({ resolver: async () => Promise.reject(new Error('must not be asked')) });
    expect(await policy.check('8.8.8.8', 443, 'user')).toEqual({ ok: true, target: { host: '8.8.8.8', port: 443, addresses: [{ address: '8.8.8.8', family: 4 }], vouched: false } });
    expect(await policy.check('[2606:4700::1111]', 443, 'user')).toEqual({ ok: true, target: { host: '2606:4700::1111', port: 443, addresses: [{ address: '2606:4700::1111', family: 6 }], vouched: false } });
  });

  it('vouched for only when the operator asked, the name is allowed, or every address is in an allowed network', async () => {
    const parsed = parseAllowedHosts('lan.example:8443, 93.184.215.14');
    if (!parsed.ok) throw new Error(parsed.entry);
    const policy = new OutboundPolicy({ resolver, allowedHosts: new AllowedHosts(parsed.entries) });
    expect(await policy.check('one.example', 443, 'user')).toMatchObject({ ok: true, target: { vouched: true } });
    expect(await policy.check('both.example', 443, 'user')).toMatchObject({ ok: true, target: { vouched: false } });
    expect(await policy.check('lan.example', 8443, 'user')).toMatchObject({ ok: true, target: { vouched: true } });
    expect((await policy.check('lan.example', 443, 'user')).ok).toBe(false);
    expect(await policy.check('lan.example', 443, 'operator')).toMatchObject({ ok: true, target: { vouched: true } });
    expect(await policy.check('localhost', 443, 'operator')).toMatchObject({ ok: false, error: { reason: 'no such host' } });
  });

  it('connects only to the checked addresses, of the family asked for', async () => {
    const addresses: ResolvedAddress[] = [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f::1', family: 6 }];
    const lookup = pinnedLookup(addresses);
    const ask = (options: object) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
        lookup('ignored.example', options as never, (error: NodeJS.ErrnoException | null, address: unknown, family?: number) => resolve({ error, address, family })),
      );
    expect(await ask({})).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await ask({ family: 6 })).toEqual({ error: null, address: '2606:2800:21f::1', family: 6 });
    expect(await ask({ family: 'IPv6' })).toEqual({ error: null, address: '2606:2800:21f::1', family: 6 });
    expect(await ask({ family: 'IPv4' })).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await ask({ family: 0, all: true })).toEqual({ error: null, address: addresses, family: undefined });
    expect(await ask({ family: 4, all: true })).toEqual({ error: null, address: [addresses[0]], family: undefined });
    const none = await ask({ family: 6 }).then(() => new Promise<{ error: NodeJS.ErrnoException | null }>((resolve) => pinnedLookup([addresses[0]!])('x', { family: 6 } as never, (error: NodeJS.ErrnoException | null) => resolve({ error }))));
    expect(none.error).toMatchObject({ code: 'ENOTFOUND', message: 'no checked address of that family' });
  });
});
