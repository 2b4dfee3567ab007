import { describe, expect, it } from 'vitest';
import { classifyAddress, isLoopbackAddress } from '../../src/net/address-ranges.js';
import { AllowedHosts, canonicalHost, parseAllowedHosts } from '../../src/net/allowed-hosts.js';
import { OUTBOUND_REFUSED_MESSAGE, OutboundPolicy, type HostResolver } from '../../src/net/outbound-policy.js';
import { mappedResolver } from '../helpers/outbound.js';

/** A policy with CONNECT_ALLOWED_HOSTS set to `allowed`, and the resolver's calls counted. */
function policyWith(allowed: string, resolver: HostResolver = mappedResolver({})) {
  const parsed = parseAllowedHosts(allowed);
  if (!parsed.ok) throw new Error(parsed.entry);
  const asked: string[] = [];
  const policy = new OutboundPolicy({
    allowedHosts: new AllowedHosts(parsed.entries),
    resolver: async (name) => {
      asked.push(name);
      return resolver(name);
    },
  });
  return { policy, asked };
}

describe('which addresses are the public internet', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.200.1.1', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.192', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    // IPv6 carrying IPv4: judged by the IPv4 address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:101::1', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['100::1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['2606:4700:4700::1111', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('reads hosts as a URL does, so no spelling of an address slips past', () => {
    expect(['2130706433', '0x7f.1', '127.1', '017700000001', '0x7f000001'].map(canonicalHost)).toEqual(Array(5).fill('127.0.0.1'));
    expect(canonicalHost('[::1]')).toBe('::1');
    expect(canonicalHost('[::ffff:127.0.0.1]')).toBe('::ffff:7f00:1');
    expect(canonicalHost('CalDAV.Example.COM')).toBe('caldav.example.com');
    expect(canonicalHost('bücher.example')).toBe('xn--bcher-kva.example');
    for (const notAHost of ['', 'host:80', 'user@host', 'host/path', 'fe80::1%eth0', 'a b', 'host?x']) expect(canonicalHost(notAHost), notAHost).toBeUndefined();
    expect(isLoopbackAddress('127.0.0.1') && isLoopbackAddress('::1') && isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('64:ff9b::7f00:1') || isLoopbackAddress('10.0.0.1')).toBe(false);
  });
});

describe('CONNECT_ALLOWED_HOSTS', () => {
  it('takes hosts, hosts with a port and networks, and names the first entry that is none', () => {
    const parsed = parseAllowedHosts('nas.home.lan, caldav.home.lan:5232, 192.168.1.0/24, [fd00::20]:993, 10.0.0.7');
    expect(parsed.ok).toBe(true);
    const allowed = new AllowedHosts(parsed.ok ? parsed.entries : []);
    expect(allowed.allowsName('nas.home.lan', 1)).toBe(true);
    expect(allowed.allowsName('caldav.home.lan', 5232)).toBe(true);
    expect(allowed.allowsName('caldav.home.lan', 22)).toBe(false);
    expect(allowed.allowsAddress('192.168.1.77', 22)).toBe(true);
    expect(allowed.allowsAddress('::ffff:192.168.1.77', 22)).toBe(true);
    expect(allowed.allowsAddress('192.168.2.1', 22)).toBe(false);
    expect(allowed.allowsAddress('fd00::20', 993)).toBe(true);
    expect(allowed.allowsAddress('fd00::20', 143)).toBe(false);
    expect(allowed.allowsAddress('10.0.0.7', 5)).toBe(true);
    for (const bad of ['http://nas', 'nas:0', 'nas:99999', '10.0.0.0/33', '[::1', 'a b']) expect(parseAllowedHosts(`ok.lan,${bad}`)).toEqual({ ok: false, entry: bad });
  });
});

describe('the outbound policy', () => {
  it('refuses every non-public spelling with one message, asking no resolver for addresses and localhost', async () => {
    const { policy, asked } = policyWith('');
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '[::1]', '::1', '0.0.0.0', '[::ffff:127.0.0.1]', '169.254.169.254', '10.0.0.1', '100.64.1.1', 'fd00::1', 'localhost', 'LOCALHOST', 'x.localhost']) {
      const checked = await policy.check(host, 443, 'user');
      expect(checked.ok, host).toBe(false);
      if (!checked.ok) expect(checked.error.message).toBe(OUTBOUND_REFUSED_MESSAGE);
    }
    expect(asked).toEqual([]);
  });

  it('refuses a name when any of its addresses is not public, and a name that does not exist, with the same message', async () => {
    const { policy } = policyWith('', mappedResolver({ 'calendar.example.com': ['127.0.0.1'], 'mixed.example.com': ['93.184.215.14', '10.0.0.5'], 'public.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }));
    const messages = [];
    for (const host of ['calendar.example.com', 'mixed.example.com', 'no-such-host.example.com']) {
      const checked = await policy.check(host, 443, 'user');
      expect(checked.ok, host).toBe(false);
      if (!checked.ok) messages.push(checked.error.message);
    }
    expect(new Set(messages)).toEqual(new Set([OUTBOUND_REFUSED_MESSAGE]));
    const allowed = await policy.check('public.example.com', 443, 'user');
    expect(allowed).toMatchObject({ ok: true, target: { host: 'public.example.com', port: 443, vouched: false, addresses: [{ address: '93.184.215.14', family: 4 }, { family: 6 }] } });
  });

  it('lets through what the operator allowed (by name, port or network) and everything for the operator, vouched for plain http', async () => {
    const { policy } = policyWith('nas.home.lan, 127.0.0.1:5232, 192.168.1.0/24', mappedResolver({ 'nas.home.lan': ['10.9.9.9'], 'printer.home.lan': ['192.168.1.40'], 'elsewhere.home.lan': ['10.1.1.1'], localhost: ['127.0.0.1'] }));
    expect(await policy.check('nas.home.lan', 8443, 'user')).toMatchObject({ ok: true, target: { addresses: [{ address: '10.9.9.9' }], vouched: true } });
    expect(await policy.check('127.0.0.1', 5232, 'user')).toMatchObject({ ok: true, target: { vouched: true } });
    expect((await policy.check('127.0.0.1', 5233, 'user')).ok).toBe(false);
    expect(await policy.check('printer.home.lan', 631, 'user')).toMatchObject({ ok: true, target: { vouched: true } });
    expect((await policy.check('elsewhere.home.lan', 80, 'user')).ok).toBe(false);
    expect(await policy.check('elsewhere.home.lan', 80, 'operator')).toMatchObject({ ok: true, target: { addresses: [{ address: '10.1.1.1' }], vouched: true } });
    expect(await policy.check('localhost', 143, 'operator')).toMatchObject({ ok: true });
  });

  it('passes on a resolver that cannot answer now (the server may be fine)', async () => {
    const { policy } = policyWith('', async () => {
      throw Object.assign(new Error('queryA EAI_AGAIN mail.example.com'), { code: 'EAI_AGAIN' });
    });
    await expect(policy.check('mail.example.com', 993, 'user')).rejects.toMatchObject({ code: 'EAI_AGAIN' });
  });
});
