import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a real server (Radicale) that can misbehave on command: answer
 * the next requests with an error status instead of forwarding them, run a hook before
 * forwarding one (to change the server's state at that very moment), or go away entirely
 * (connection refused) and come back on the same port.
 */
export class FaultProxy {
  /** "METHOD path" of every request, in order. */
  readonly requests: string[] = [];
  private failures: number[] = [];
  private hook: ((method: string, path: string) => Promise<void>) | undefined;
  private server: Server;

  private constructor(
    private readonly target: string,
    server: Server,
    readonly port: number,
  ) {
    this.server = server;
  }

  static async start(target: string): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = createServer((request, response) => void proxy!.handle(request, response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    proxy = new FaultProxy(target.replace(/\/+$/, ''), server, (server.address() as AddressInfo).port);
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next requests get these statuses, unforwarded. */
  failNext(...statuses: number[]): void {
    this.failures.push(...statuses);
  }

  /** Runs `hook` before forwarding the next request it accepts (it returns true to take it), once. */
  beforeNext(hook: (method: string, path: string) => Promise<boolean>): void {
    this.hook = async (method, path) => {
      if (await hook(method, path)) this.hook = undefined;
    };
  }

  /** Stops listening: connections are refused until {@link reopen}. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async reopen(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '/';
    this.requests.push(`${request.method} ${path}`);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      response.writeHead(failure, { 'content-type': 'text/plain' }).end(`injected ${failure}`);
      return;
    }
    await this.hook?.(request.method ?? 'GET', path);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'connection' && name !== 'content-length')) as Record<string, string>;
    const forwarded = await fetch(`${this.target}${path}`, { method: request.method, headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}), redirect: 'manual' });
    const body = Buffer.from(await forwarded.arrayBuffer());
    const responseHeaders: Record<string, string> = {};
    forwarded.headers.forEach((value, name) => {
      if (!['content-encoding', 'transfer-encoding', 'connection', 'content-length'].includes(name)) responseHeaders[name] = value;
    });
    response.writeHead(forwarded.status, responseHeaders).end(body);
  }
}
