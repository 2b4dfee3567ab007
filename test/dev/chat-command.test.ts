import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../src/logging/logger.js';
import { ConsoleTransport } from '../../src/outbox/console-transport.js';
import { randomIds } from '../../src/shared/ids.js';
import { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import { registerWait } from '../fakes/fake-failures.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { photo } from '../helpers/media-fixtures.js';
import { freePort } from '../helpers/herald-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** `npm run chat` as a person runs it: a child process, typed lines in, printed lines out. */
class Chat {
  readonly output: string[] = [];
  private readonly waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  readonly exited: Promise<unknown[]>;

  constructor(readonly child: ChildProcess) {
    const onLine = (line: string) => {
      this.output.push(line);
      for (const waiter of [...this.waiters]) {
        if (!waiter.pattern.test(line)) continue;
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    this.exited = once(child, 'exit');
  }

  static start(args: string[], env: Record<string, string> = {}): Chat {
    return new Chat(
      spawn(process.execPath, ['--import', 'tsx', path.resolve('src/cli/chat-command.ts'), ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
  }

  /** Resolves with the first line matching `pattern` (for as long as the test lets it). */
  waitFor(pattern: RegExp): Promise<string> {
    const seen = this.output.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const unregister = registerWait(this, () => `the chat: no line matching ${pattern} yet; output:\n${this.output.join('\n')}`);
      this.waiters.push({ pattern, resolve: (line) => (unregister(), resolve(line)) });
    });
  }

  type(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Ctrl+D: end of input; resolves with the exit code. */
  async quit(): Promise<number | null> {
    this.child.stdin!.end();
    const [code] = await this.exited;
    return code as number | null;
  }
}

describe('npm run chat against a running local Herald', () => {
  let harness: HeraldHarness;
  let baseUrl: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' }, transport: new ConsoleTransport(createSilentLogger(), randomIds, () => {}) });
    await harness.herald.app.listen({ host: '127.0.0.1', port: 0 });
    const address = harness.herald.app.server.address() as { port: number };
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await harness.close();
  });

  it('sends typed lines as texts from --from and prints the replies as they arrive', async () => {
    const chat = Chat.start(['--url', baseUrl, '--from', '+14155550111']);
    await chat.waitFor(/^Texting Herald at http:\/\/127\.0\.0\.1:\d+ as \+14155550111\./);
    harness.anthropic.enqueue((request) => ({ text: `Hello! You said "${request.lastUserText()}".\nSecond line.` }));
    chat.type('hi');
    expect(await chat.waitFor(/herald › /)).toMatch(/herald › Hello! You said "hi"\.$/);
    await chat.waitFor(/^ {9}Second line\.$/);
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550111' } });
    expect(user).toBeDefined();
    expect(await chat.quit()).toBe(0);
  });

  it('a line starting with a file path sends the file as the attachment, the rest as its text', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'herald-chat-'));
    const file = path.join(directory, 'receipt.jpg');
    await writeFile(file, await photo(900, 1200));
    try {
      const chat = Chat.start(['--url', baseUrl, '--from', '+14155550113']);
      await chat.waitFor(/^Texting Herald at /);
      harness.anthropic.enqueue((request) => ({ text: `${request.mediaBlocks().length} photo, text "${request.lastUserText().split('\n').at(-1)}".` }));
      chat.type(`${file} what did I buy?`);
      expect(await chat.waitFor(/herald › /)).toMatch(/herald › 1 photo, text "what did I buy\?"\.$/);
      expect(await chat.quit()).toBe(0);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('says why a bad number cannot chat', async () => {
    const chat = Chat.start(['--url', baseUrl, '--from', '12345']);
    await chat.waitFor(/^Cannot chat: .*refused: from: must be a phone number in international form/);
    expect((await chat.exited)[0]).toBe(1);
  });

  it('says plainly when nothing runs at --url', async () => {
    const chat = Chat.start(['--url', `http://127.0.0.1:${await freePort()}`]);
    await chat.waitFor(/^Cannot chat: nothing answers at http:\/\/127\.0\.0\.1:\d+; start Herald with `npm start`\.$/);
    expect((await chat.exited)[0]).toBe(1);
  });
});

describe('npm run chat with no Herald running', () => {
  let database: TestDatabase;
  let anthropic: FakeAnthropicServer;

  beforeAll(async () => {
    [database, anthropic] = await Promise.all([createTestDatabase(), FakeAnthropicServer.start()]);
  });
  afterAll(async () => {
    await anthropic.close();
    await database.drop();
  });

  it('starts Herald in its own process and chats with it', async () => {
    const port = await freePort();
    const chat = Chat.start(['--from', '+14155550112'], {
      PORT: String(port),
      DATABASE_URL: database.url,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_MAX_RETRIES: '0',
    });
    await chat.waitFor(/^No Herald is running here; starting one/);
    await chat.waitFor(new RegExp(`^Texting Herald at http://127\\.0\\.0\\.1:${port} as \\+14155550112\\.`));
    anthropic.enqueue({ text: 'Hi from an in-process Herald.' });
    chat.type('hello');
    await chat.waitFor(/herald › Hi from an in-process Herald\.$/);
    expect(await chat.quit()).toBe(0);
    expect(await database.prisma.message.count({ where: { content: 'Hi from an in-process Herald.' } })).toBe(1);
  }, 90_000);
});
