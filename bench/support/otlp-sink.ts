import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP/HTTP collector that takes every export and keeps nothing, for measuring what exporting costs Herald. */
export async function startOtlpSink(): Promise<{ url: string; exports: () => number; close(): Promise<void> }> {
  let exports = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, exports: () => exports, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
