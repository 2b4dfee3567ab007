import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowedHosts, parseAllowedHosts } from '../../src/net/allowed-hosts.js';
import { createOutboundHttp, ResponseTooLargeError } from '../../src/net/outbound-fetch.js';
import { OUTBOUND_REFUSED_MESSAGE, OutboundPolicy, OutboundRefusedError, PLAIN_HTTP_REFUSED_MESSAGE, type HostResolver } from '../../src/net/outbound-policy.js';
import { mappedResolver } from '../helpers/outbound.js';
import { RecordingServer } from '../helpers/recording-server.js';

function httpWith(allowed: string, resolver?: HostResolver, timeoutMs = 3000) {
  const parsed = parseAllowedHosts(allowed);
  if (!parsed.ok) throw new Error(parsed.entry);
  return createOutboundHttp(new OutboundPolicy({ allowedHosts: new AllowedHosts(parsed.entries), resolver }), { trust: 'user', timeoutMs });
}

const basic = { authorization: `Basic ${Buffer.from('ana:secret').toString('base64')}` };

describe('HTTP under the outbound policy', () => {
  let target: RecordingServer;
  let other: RecordingServer;
  let redirector: RecordingServer;

  beforeAll(async () => {
    target = await RecordingServer.start((request, response) => response.writeHead(207, { 'content-type': 'application/xml', etag: '"1"' }).end(`<seen>${request.method}</seen>`));
    other = await RecordingServer.start();
    // Redirects to whatever `?to=` says, with the status `?status=`.
    redirector = await RecordingServer.start((request, response) => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams;
      response.writeHead(Number(query.get('status') ?? 302), { location: query.get('to') ?? '/' }).end();
    });
  });
  afterAll(async () => {
    await Promise.all([target.close(), other.close(), redirector.close()]);
  });

  it('reaches an allowed server with the method, headers and body given, and answers like fetch', async () => {
    const http = httpWith(`127.0.0.1:${target.port}`);
    const response = await http.fetch(`${target.url}/dav/`, { method: 'PROPFIND', headers: { ...basic, depth: '0' }, body: '<propfind/>' });
    expect(response.status).toBe(207);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${target.url}/dav/`);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(await response.text()).toBe('<seen>PROPFIND</seen>');
    expect(target.requests.at(-1)).toMatchObject({ method: 'PROPFIND', url: '/dav/', authorization: basic.authorization, body: '<propfind/>' });
  });

  it('refuses a server that is not allowed without sending it anything, the same for an open and a closed port', async () => {
    const http = httpWith('');
    const before = target.requests.length;
    const errors = [];
    for (const url of [target.url, 'http://127.0.0.1:1/', 'http://[::1]:1/', 'http://2130706433/', 'http://localhost/', 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/latest/meta-data/']) {
      errors.push(await http.fetch(url, { headers: basic }).catch((error: unknown) => error));
    }
    expect(errors.every((error) => error instanceof OutboundRefusedError && error.message === OUTBOUND_REFUSED_MESSAGE)).toBe(true);
    expect(target.requests.length).toBe(before);
    await expect(http.fetch('file:///etc/passwd')).rejects.toThrow(OUTBOUND_REFUSED_MESSAGE);
  });

  it('connects to the address it checked: the resolver is asked once, and the name kept for Host', async () => {
    let asked = 0;
    const resolver: HostResolver = async (name) => {
      asked += 1;
      return mappedResolver({ 'calendar.example.com': ['127.0.0.1'] })(name);
    };
    const http = httpWith(`127.0.0.1:${target.port}`, resolver);
    const response = await http.fetch(`http://calendar.example.com:${target.port}/x`);
    expect(response.status).toBe(207);
    expect(asked).toBe(1);
    expect(target.requests.at(-1)).toMatchObject({ url: '/x', host: `calendar.example.com:${target.port}` });
  });

  it('follows redirects by hand, checking each hop: one into a refused address is refused and never sent', async () => {
    const http = httpWith(`127.0.0.1:${redirector.port}`);
    const before = other.requests.length;
    for (const to of [`${other.url}/internal`, `http://localhost:${other.port}/`, `http://[::1]:${other.port}/`, 'http://169.254.169.254/']) {
      await expect(http.fetch(`${redirector.url}/?to=${encodeURIComponent(to)}&status=307`, { method: 'PROPFIND', headers: basic }), to).rejects.toThrow(OUTBOUND_REFUSED_MESSAGE);
    }
    expect(other.requests.length).toBe(before);
  });

  it('keeps credentials within the origin: a redirect elsewhere goes without Authorization; 303 becomes GET', async () => {
    const http = httpWith(`127.0.0.1:${redirector.port}, 127.0.0.1:${other.port}`);
    await http.fetch(`${redirector.url}/?to=${encodeURIComponent(`${other.url}/moved`)}&status=308`, { method: 'PUT', headers: basic, body: 'event' });
    expect(other.requests.at(-1)).toMatchObject({ method: 'PUT', url: '/moved', body: 'event' });
    expect(other.requests.at(-1)!.authorization).toBeUndefined();
    // Same origin: the credentials stay.
    await http.fetch(`${redirector.url}/?to=${encodeURIComponent('/?to=x&status=200')}&status=302`, { headers: basic });
    expect(redirector.requests.at(-1)).toMatchObject({ url: '/?to=x&status=200', authorization: basic.authorization });
    await http.fetch(`${redirector.url}/?to=${encodeURIComponent(`${other.url}/seen`)}&status=303`, { method: 'POST', headers: basic, body: 'form' });
    expect(other.requests.at(-1)).toMatchObject({ method: 'GET', url: '/seen', body: '' });
  });

  it("hands a redirect back when asked to (redirect: 'manual'), and stops after five", async () => {
    const http = httpWith(`127.0.0.1:${redirector.port}`);
    const manual = await http.fetch(`${redirector.url}/?to=${encodeURIComponent('http://127.0.0.1:1/')}`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('http://127.0.0.1:1/');
    // Without ?to= the redirector sends every request back to itself.
    const before = redirector.requests.length;
    await expect(http.fetch(`${redirector.url}/`)).rejects.toThrow('too many redirects');
    expect(redirector.requests.length - before).toBe(6);
  });

  it('sends no password over plain http to a public host (nothing is contacted)', async () => {
    const http = httpWith('', mappedResolver({ 'caldav.example.com': ['93.184.215.14'] }));
    await expect(http.fetch('http://caldav.example.com/', { headers: basic })).rejects.toThrow(PLAIN_HTTP_REFUSED_MESSAGE);
    await expect(http.check('http://caldav.example.com/')).rejects.toThrow(PLAIN_HTTP_REFUSED_MESSAGE);
    await expect(http.check('https://caldav.example.com/')).resolves.toMatchObject({ host: 'caldav.example.com', port: 443, vouched: false });
  });

  it('caps the answer: one declared too large is refused unread, one too large is cut; bytes past a complete answer are ignored', async () => {
    const raw = createServer((socket) => {
      socket.once('data', (request) => {
        const path = /^GET (\S+)/.exec(request.toString())?.[1];
        // Written by hand: Node's own server would not send more than its Content-Length.
        if (path === '/declared') socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\nshort');
        else if (path === '/chunked') socket.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1388\r\n${'x'.repeat(5000)}\r\n0\r\n\r\n`);
        else socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok${'EXTRA'.repeat(1000)}`);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as AddressInfo;
    try {
      const parsed = parseAllowedHosts(`127.0.0.1:${port}`);
      if (!parsed.ok) throw new Error(parsed.entry);
      const http = createOutboundHttp(new OutboundPolicy({ allowedHosts: new AllowedHosts(parsed.entries) }), { trust: 'user', timeoutMs: 3000, maxResponseBytes: 1024 });
      await expect(http.fetch(`http://127.0.0.1:${port}/declared`)).rejects.toMatchObject({ code: 'ERESPONSETOOLARGE', sizeBytes: 5000 });
      const cut = await http.fetch(`http://127.0.0.1:${port}/chunked`).catch((error: unknown) => error);
      expect(cut).toBeInstanceOf(ResponseTooLargeError);
      expect((cut as ResponseTooLargeError).sizeBytes).toBeGreaterThan(1024);
      expect(await (await http.fetch(`http://127.0.0.1:${port}/extra`)).text()).toBe('ok');
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('gives up at its deadline, saying so', async () => {
    const silent = await RecordingServer.start(() => undefined);
    try {
      const http = httpWith(`127.0.0.1:${silent.port}`, undefined, 200);
      await expect(http.fetch(silent.url)).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      await silent.close();
    }
  });
});
