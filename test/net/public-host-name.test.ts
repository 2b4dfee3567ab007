import { describe, expect, it } from 'vitest';
import { publicHostName } from '../../src/net/public-host-name.js';

describe('public DNS names (what web fetch may be given)', () => {
  it('takes the names of the public internet, as a URL reads them', () => {
    expect(publicHostName('news.example.com')).toBe('news.example.com');
    expect(publicHostName('News.Example.COM.')).toBe('news.example.com');
    expect(publicHostName('bücher.ch')).toBe('xn--bcher-kva.ch');
    expect(publicHostName('a-b.co.uk')).toBe('a-b.co.uk');
    expect(publicHostName('example.org')).toBe('example.org');
    // Near misses: a digit-led label, a number as a non-final label, a TLD that only starts like a reserved one.
    expect(publicHostName('1password.com')).toBe('1password.com');
    expect(publicHostName('10.0.0.7.nip.io')).toBe('10.0.0.7.nip.io');
    expect(publicHostName('my.localhosting.com')).toBe('my.localhosting.com');
    expect(publicHostName('shop.testing')).toBe('shop.testing');
  });

  it('refuses every spelling of an IP address', () => {
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '0x7f000001', '0177.0.0.1', '127.1', '169.254.169.254', '10.0.0.7', '8.8.8.8', '::1', '[::1]', '[::ffff:127.0.0.1]', '[2001:4860:4860::8888]', 'fd00::1', '1.2.3.999']) {
      expect(publicHostName(host), host).toBeUndefined();
    }
  });

  it('refuses localhost, single labels, reserved and private-use names', () => {
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost', 'intranet', 'printer.local', 'db.internal', 'site.test', 'x.invalid', 'www.example', 'router.home.arpa', '1.0.0.127.in-addr.arpa', 'nas.lan', 'abc.onion', 'box.corp']) {
      expect(publicHostName(host), host).toBeUndefined();
    }
  });

  it('refuses what is not a host: empty, a port, a path, credentials, bad labels, too long', () => {
    for (const host of ['', '.', 'a..b.com', '-a.com', 'a-.com', 'a_b.com', 'example.com:443', 'example.com/x', 'user@example.com', 'exa mple.com', `${'a'.repeat(64)}.com`, `${'a.'.repeat(127)}com`, 'x'.repeat(100_000)]) {
      expect(publicHostName(host), host.slice(0, 40)).toBeUndefined();
    }
    expect(publicHostName(`${'a'.repeat(63)}.com`)).toBe(`${'a'.repeat(63)}.com`);
  });
});
