import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fallbackReply } from '../../src/texts/fallback-replies.js';
import { keywordReply } from '../../src/turns/keyword-replies.js';
import { registerWait } from '../fakes/fake-failures.js';
import { HERALD_SMS_NUMBER, HeraldHarness, inboundForm } from '../helpers/herald-harness.js';
import { startHeraldProcess, type HeraldProcess } from '../helpers/herald-process.js';
import { requireInCi } from '../helpers/preconditions.js';

const NO_MODEL_REPLY = fallbackReply('noModel', null);
const ACCOUNT_SID = 'AC' + '0'.repeat(32);

/** Captures what is printed to this process's stdout (the console transport prints there). */
class StdoutCapture {
  readonly chunks: string[] = [];
  private readonly events = new EventEmitter();

  start(): void {
    const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
    vi.spyOn(process.stdout, 'write').mockImplementation(((...args: unknown[]) => {
      this.chunks.push(String(args[0]));
      this.events.emit('chunk');
      return write(...args);
    }) as typeof process.stdout.write);
  }

  /** Resolves with everything printed once it matches `pattern` (for as long as the test lets it). */
  waitFor(pattern: RegExp): Promise<string> {
    const text = () => this.chunks.join('');
    if (pattern.test(text())) return Promise.resolve(text());
    return new Promise((resolve) => {
      const unregister = registerWait(this, () => `the console: nothing printed matching ${pattern} yet`);
      const check = () => {
        if (!pattern.test(text())) return;
        unregister();
        this.events.off('chunk', check);
        resolve(text());
      };
      this.events.on('chunk', check);
    });
  }
}

/** An unsigned inbound webhook, as a developer would post it by hand. */
function unsignedInbound(harness: HeraldHarness, from: string, body: string, remoteAddress?: string) {
  return harness.herald.app.inject({
    method: 'POST',
    url: '/twilio/messages',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(inboundForm({ from, body }, ACCOUNT_SID)).toString(),
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

describe('local mode: no Twilio credentials', () => {
  let harness: HeraldHarness;
  const stdout = new StdoutCapture();

  beforeAll(async () => {
    stdout.start();
    harness = await HeraldHarness.start({ env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' } });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await harness.close();
  });

  it('answers an unsigned loopback webhook through the console transport, records the reply as sent, and never calls Twilio', async () => {
    expect(harness.config.twilio.transport).toBe('console');
    expect(harness.logs.text()).toMatch(/Twilio credentials are not set/);

    // Without an auth token, only loopback may post unsigned webhooks.
    const remote = await unsignedInbound(harness, '+14155550170', 'from afar', '203.0.113.9');
    expect(remote.statusCode).toBe(403);

    harness.anthropic.enqueue({ text: 'Hello from the **local** Herald.' });
    const response = await unsignedInbound(harness, '+14155550171', 'hello locally');
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<Response');

    const printed = await stdout.waitFor(/── Herald → \+14155550171 ──\nHello from the local Herald\./);
    expect(printed).toContain('Hello from the local Herald.');
    // Drain: the delivery in flight finishes recording before we look.
    await harness.settle();

    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550171' } });
    const outbound = await harness.database.prisma.outboundMessage.findMany({ where: { userId: user.id } });
    expect(outbound).toHaveLength(1);
    expect(outbound[0]).toMatchObject({ status: 'sent', body: 'Hello from the local Herald.', toAddress: '+14155550171', fromAddress: HERALD_SMS_NUMBER });
    expect(outbound[0]?.twilioSid).toMatch(/^SM[0-9a-f]{32}$/);
    expect(outbound[0]?.sentAt).not.toBeNull();
    expect(harness.anthropic.requests).toHaveLength(1);
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await harness.database.prisma.user.count({ where: { phone: '+14155550170' } })).toBe(0);
    // The console transport records the delivery in the log, but the body only on the console.
    const transportLogs = harness.logs.lines.filter((line) => line.component === 'console-transport');
    expect(transportLogs.length).toBeGreaterThan(0);
    expect(JSON.stringify(transportLogs)).not.toContain('Hello from the local Herald');
  });
});

describe('local mode: no Twilio credentials and no model key', () => {
  let harness: HeraldHarness;
  const stdout = new StdoutCapture();

  beforeAll(async () => {
    stdout.start();
    harness = await HeraldHarness.start({ env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '', ANTHROPIC_API_KEY: '' } });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await harness.close();
  });

  it('replies that no model key is set, without calling any model, and records the turn as a configuration failure', async () => {
    expect(harness.logs.text()).toMatch(/ANTHROPIC_API_KEY is not set/);
    const response = await unsignedInbound(harness, '+14155550172', 'hi, are you there?');
    expect(response.statusCode).toBe(200);

    await stdout.waitFor(/── Herald → \+14155550172 ──\n[^\n]*ANTHROPIC_API_KEY/);
    await harness.settle();

    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550172' } });
    const [outbound] = await harness.database.prisma.outboundMessage.findMany({ where: { userId: user.id } });
    expect(outbound).toMatchObject({ body: NO_MODEL_REPLY, status: 'sent' });
    expect(NO_MODEL_REPLY).toContain('ANTHROPIC_API_KEY');
    const [turn] = await harness.database.prisma.turn.findMany({ where: { userId: user.id } });
    expect(turn).toMatchObject({ status: 'failed', errorKind: 'configuration' });
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(harness.twilio.requests).toHaveLength(0);
  });
});

describe('local mode without a model key: what needs no model still works', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '', ANTHROPIC_API_KEY: '' } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('says what still works without a key, and those words do work: HELP and MY DATA answered, no model called', async () => {
    for (const words of ['HELP', 'MY DATA', 'DELETE MY DATA', 'STOP', 'START']) expect(NO_MODEL_REPLY).toContain(words);
    const phone = '+14155550173';
    expect((await unsignedInbound(harness, phone, 'HELP')).statusCode).toBe(200);
    expect((await unsignedInbound(harness, phone, 'MY DATA')).statusCode).toBe(200);
    await harness.idle(phone);
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const sent = await harness.database.prisma.outboundMessage.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } });
    expect(sent.map((message) => message.body)).toEqual([keywordReply('help', null), expect.stringContaining('/p/')]);
    expect(sent.map((message) => message.body)).not.toContain(NO_MODEL_REPLY);
    expect(harness.anthropic.requests).toHaveLength(0);
  });
});

describe('local mode: `npm start` with nothing configured', () => {
  let dataDir: string;
  let herald: HeraldProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'herald-local-'));
  });
  afterEach(async () => {
    if (herald && herald.child.exitCode === null && herald.child.signalCode === null) await herald.crash();
  });
  afterAll(async () => {
    // If the server was not stopped (a failed test), stop the Postgres it left behind.
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
      if (Number.isInteger(pid) && pid > 0) {
        try {
          process.kill(pid, 'SIGINT');
        } catch {
          // already gone
        }
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts an embedded Postgres, answers an unsigned local webhook on the console, and stops cleanly', async () => {
    herald = await startHeraldProcess({ DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'info' });

    // Clear start-up warnings for what is missing.
    const jsonLines = () =>
      herald!.output.flatMap((line) => {
        try {
          return [JSON.parse(line) as { level: number; msg?: string }];
        } catch {
          return [];
        }
      });
    const warnings = jsonLines().filter((line) => line.level === 40).map((line) => line.msg ?? '');
    expect(warnings.some((message) => /ANTHROPIC_API_KEY is not set/.test(message))).toBe(true);
    expect(warnings.some((message) => /Twilio credentials are not set/.test(message))).toBe(true);
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);

    const form = inboundForm({ from: '+14155550173', body: 'hello from my laptop', to: '+15005550006' }, ACCOUNT_SID);
    const response = await fetch(`${herald.baseUrl}/twilio/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<Response');

    // The console transport prints the reply as a plain block: a header line, then the text.
    const header = await herald.waitForOutput(/── Herald → \+14155550173 ──/);
    const replyLine = await herald.waitForOutput(/Herald isn't connected to its AI model/);
    expect(herald.output.indexOf(replyLine)).toBeGreaterThan(herald.output.indexOf(header));
    expect(replyLine).toBe(NO_MODEL_REPLY);
    expect(replyLine).toContain('ANTHROPIC_API_KEY');

    // The start-up line says how to try it; the command it prints works as printed.
    const listening = jsonLines().find((line) => line.msg?.startsWith('Herald is listening'));
    expect(listening?.msg).toMatch(/local mode/);
    const command = /(curl .*\/twilio\/messages)/.exec(listening?.msg ?? '')?.[1];
    expect(command).toBeDefined();
    const run = promisify(execFile);
    const hasCurl = await run('sh', ['-c', 'command -v curl']).then(() => true, () => false);
    if (requireInCi(hasCurl, 'curl is not installed, so the printed command cannot be tried')) {
      const { stdout } = await run('sh', ['-c', `${command} --silent --show-error --fail`]);
      expect(stdout).toContain('<Response');
      await herald.waitForOutput(/── Herald → \+14155550100 ──/);
    }

    const exitCode = await herald.terminate();
    expect(exitCode).toBe(0);
    expect(jsonLines().some((line) => line.msg === 'stopped cleanly')).toBe(true);
    // It stopped the embedded Postgres it started.
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 150_000);
});
