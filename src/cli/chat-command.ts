/**
 * `npm run chat -- [--from +14155550123] [--url http://127.0.0.1:3000]`: the dev phone in
 * a terminal. It talks to a running local Herald (`npm start`) through the dev phone's own
 * endpoints: each line typed is posted as a text from `--from` (through the real webhook),
 * and everything Herald sends that number, reminders included, is printed as it arrives.
 * A line that starts with the path of a file (a photo, a PDF, a voice note) sends that file
 * as the message's attachment, the rest of the line as its text.
 * When nothing answers at the address and no `--url` was given, it starts Herald in this
 * process first, exactly as `npm start` would, quietly.
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createInterface, type Interface } from 'node:readline';
import { loadConfig } from '../config/config.js';
import { createLogger } from '../logging/logger.js';
import { ConsoleTransport } from '../outbox/console-transport.js';
import { createHerald, type Herald } from '../runtime.js';
import { ConfigurationError } from '../shared/errors.js';
import { randomIds } from '../shared/ids.js';
import { DEFAULT_DEV_PHONE } from '../dev/dev-phone-page.js';
import { readEventStream } from '../dev/event-stream.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

const USAGE = 'usage: npm run chat -- [--from +14155550123] [--url http://127.0.0.1:3000]';

type Connection = { kind: 'connected'; events: AsyncGenerator<{ event: string; data: string }>; abort: AbortController } | { kind: 'unreachable' } | { kind: 'refused'; status: number; text: string };

/** Opens the dev phone's event stream for `phone` and waits until Herald says it is listening. */
async function connect(baseUrl: string, phone: string): Promise<Connection> {
  const abort = new AbortController();
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/dev/phone/events?from=${encodeURIComponent(phone)}`, { signal: abort.signal });
  } catch {
    return { kind: 'unreachable' };
  }
  if (!response.ok || !response.body) return { kind: 'refused', status: response.status, text: await response.text() };
  const events = readEventStream(response.body);
  const first = await events.next();
  if (first.done || first.value.event !== 'ready') return { kind: 'refused', status: response.status, text: 'no ready event' };
  return { kind: 'connected', events, abort };
}

/** Herald in this process, as `npm start` runs it, with its console output left to the chat. */
async function startHerald(): Promise<{ herald: Herald; baseUrl: string }> {
  const config = loadConfig();
  if (config.twilio.transport === 'twilio') throw new ConfigurationError('Twilio is configured here: the chat runs only against a local Herald (unset TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN).');
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'error', destination: process.stderr });
  // The chat prints what the console transport sends (from the feed); the transport stays quiet.
  const transport = new ConsoleTransport(logger, randomIds, () => {});
  const herald = await createHerald({ config, logger, transport });
  await herald.start();
  await herald.app.listen({ host: '127.0.0.1', port: config.http.port });
  return { herald, baseUrl: `http://127.0.0.1:${config.http.port}` };
}

/** Types by extension, for the upload's Content-Type (Herald itself goes by the bytes). */
const FILE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.heic': 'image/heic',
  '.pdf': 'application/pdf',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.oga': 'audio/ogg',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.wav': 'audio/wav',
  '.webm': 'audio/webm',
  '.amr': 'audio/amr',
};

/** A line's leading file path (the file must exist) and the text after it; undefined when the line is only text. */
async function attachmentOf(line: string): Promise<{ path: string; text: string } | undefined> {
  const [first = '', ...rest] = line.split(/\s+/);
  const path = resolve(first.startsWith('~/') ? `${homedir()}${first.slice(1)}` : first);
  const found = await stat(path).catch(() => undefined);
  return found?.isFile() ? { path, text: rest.join(' ') } : undefined;
}

/** Posts a typed line: its file first (to the dev media API), then the message naming it. */
async function post(baseUrl: string, from: string, line: string): Promise<Response> {
  const attachment = await attachmentOf(line);
  const media: string[] = [];
  if (attachment) {
    const type = FILE_TYPES[extname(attachment.path).toLowerCase()] ?? 'application/octet-stream';
    const uploaded = await fetch(`${baseUrl}/dev/phone/media`, { method: 'POST', headers: { 'content-type': type }, body: await readFile(attachment.path) });
    if (!uploaded.ok) return uploaded;
    media.push(((await uploaded.json()) as { id: string }).id);
  }
  const body = attachment ? attachment.text : line;
  return fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from, body, media }) });
}

function say(readline: Interface, text: string): void {
  const interactive = process.stdout.isTTY;
  if (interactive) process.stdout.write('\r\x1b[2K');
  process.stdout.write(`${text}\n`);
  if (interactive) readline.prompt(true);
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { from: { type: 'string' }, url: { type: 'string' }, help: { type: 'boolean' } }, strict: true });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const from = values.from ?? DEFAULT_DEV_PHONE;
  let baseUrl = withoutTrailingSlashes(values.url ?? `http://127.0.0.1:${process.env.PORT || 3000}`);
  let herald: Herald | undefined;
  let connection = await connect(baseUrl, from);
  if (connection.kind === 'unreachable' && !values.url) {
    process.stdout.write('No Herald is running here; starting one in this terminal (embedded Postgres, no Twilio)…\n');
    ({ herald, baseUrl } = await startHerald());
    connection = await connect(baseUrl, from);
  }
  if (connection.kind !== 'connected') {
    const why =
      connection.kind === 'unreachable'
        ? `nothing answers at ${baseUrl}; start Herald with \`npm start\``
        : connection.status === 404
          ? `${baseUrl} has no dev phone: it is only there when Twilio is not configured, and only for this machine`
          : `${baseUrl} refused: ${connection.text}`;
    process.stderr.write(`Cannot chat: ${why}.\n`);
    await herald?.stop(5000);
    return 1;
  }
  const { events, abort } = connection;

  const readline = createInterface({ input: process.stdin, output: process.stdout, prompt: 'you › ' });
  process.stdout.write(`Texting Herald at ${baseUrl} as ${from}. Type a message and press Enter (start it with a file's path to attach a photo, PDF or voice note); Ctrl+D quits.\n`);
  readline.prompt();

  const listening = (async () => {
    for await (const event of events) {
      if (event.event !== 'message') continue;
      const message = JSON.parse(event.data) as { body: string };
      say(readline, `herald › ${message.body.replaceAll('\n', '\n         ')}`);
    }
  })().catch(() => {});

  readline.on('line', (line) => {
    const body = line.trim();
    if (!body) return readline.prompt();
    void post(baseUrl, from, body)
      .then(async (response) => {
        if (!response.ok) say(readline, `(not sent: ${await response.text()})`);
        else readline.prompt();
      })
      .catch(() => say(readline, '(not sent: Herald is not reachable)'));
  });
  await new Promise<void>((resolve) => readline.once('close', resolve));
  abort.abort();
  await listening;
  process.stdout.write('\n');
  await herald?.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigurationError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${message}\n${error instanceof TypeError && /parseArgs|Unknown option/i.test(String(error)) ? `${USAGE}\n` : ''}`);
    process.exit(1);
  },
);
