import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server (Dovecot) that counts the bytes the server sends,
 * and misbehaves on command: cut the connection the moment the client sends a command
 * matching a pattern (a dropped link mid-fetch), or go away entirely (connection refused)
 * and come back on the same port.
 */
export class TcpFaultProxy {
  /** Bytes sent from the server to clients since the last {@link resetCount}. */
  serverBytes = 0;
  /** How many connections were cut by a {@link dropOn} rule. */
  drops = 0;
  /** How many connections clients opened (counted when accepted, before any byte moves). */
  connections = 0;
  /** What clients sent, as text, in order (to check, say, that no password was sent). */
  readonly clientText: string[] = [];
  private rules: Array<{ pattern: RegExp; remaining: number }> = [];
  private readonly sockets = new Set<Socket>();
  private server: Server;

  private constructor(
    private readonly targetPort: number,
    server: Server,
    readonly port: number,
  ) {
    this.server = server;
  }

  /** Listens on `host` (another interface than loopback makes the server look remote). */
  static async start(targetPort: number, host = '127.0.0.1'): Promise<TcpFaultProxy> {
    let proxy: TcpFaultProxy | undefined;
    const server = createServer((socket) => proxy!.handle(socket));
    server.listen(0, host);
    await once(server, 'listening');
    proxy = new TcpFaultProxy(targetPort, server, (server.address() as AddressInfo).port);
    return proxy;
  }

  /** The proxied server's URL with this scheme, e.g. imap://127.0.0.1:<port>. */
  url(scheme: string): string {
    return `${scheme}://127.0.0.1:${this.port}`;
  }

  /** The next `times` client writes matching `pattern` are not forwarded: the connection is cut instead. */
  dropOn(pattern: RegExp, times = 1): void {
    this.rules.push({ pattern, remaining: times });
  }

  resetCount(): void {
    this.serverBytes = 0;
  }

  /** Stops listening and cuts every connection: clients get connection refused until {@link reopen}. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async reopen(): Promise<void> {
    this.server = createServer((socket) => this.handle(socket));
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
  }

  private handle(client: Socket): void {
    this.connections += 1;
    const upstream = connect(this.targetPort, '127.0.0.1');
    this.sockets.add(client);
    this.sockets.add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      this.clientText.push(text);
      const rule = this.rules.find((candidate) => candidate.remaining > 0 && candidate.pattern.test(text));
      if (rule) {
        rule.remaining -= 1;
        this.drops += 1;
        cut();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      this.serverBytes += chunk.length;
      client.write(chunk);
    });
    client.on('error', cut);
    upstream.on('error', cut);
    client.on('close', cut);
    upstream.on('close', cut);
  }
}
