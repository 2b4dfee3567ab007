import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What reached a {@link RecordingServer}. */
export interface RecordedRequest {
  method: string;
  url: string;
  host: string;
  authorization?: string | undefined;
  body: string;
}

/**
 * An HTTP server on this machine that records every TCP connection and request reaching it
 * (and answers with `answer`): tests prove with it that something was, or was never, contacted.
 */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  /** TCP connections accepted, HTTP or not (an IMAP client counts too). */
  connections = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(answer: (request: IncomingMessage, response: ServerResponse, body: string) => void = (_request, response) => response.end('ok')): Promise<RecordingServer> {
    let recorder: RecordingServer | undefined;
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        recorder!.requests.push({ method: request.method ?? '', url: request.url ?? '', host: request.headers.host ?? '', authorization: request.headers.authorization, body });
        answer(request, response, body);
      });
    });
    server.on('connection', () => (recorder!.connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    recorder = new RecordingServer(server, (server.address() as AddressInfo).port);
    return recorder;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
