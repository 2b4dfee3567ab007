import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/connections/secret-box.js';
import { DovecotServer } from '../helpers/dovecot-server.js';
import { OUTBOUND_REFUSED_MESSAGE } from '../../src/net/outbound-policy.js';
import { HeraldHarness, TEST_ENCRYPTION_KEY } from '../helpers/herald-harness.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run accounts -- add-imap`, run for real as a child process against a test database, a real Dovecot and an SMTP server. */
describe('npm run accounts -- add-imap', () => {
  let database: TestDatabase;
  let dovecot: DovecotServer;
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    [database, dovecot] = await Promise.all([createTestDatabase(2), DovecotServer.start({ 'ana@herald.test': { password: 'app-password', address: 'ana@herald.test' } })]);
    smtp = await SmtpReceiver.start(dovecot);
  });
  afterAll(async () => {
    await smtp?.stop();
    await dovecot?.stop();
    await database?.drop();
  });

  function accounts(...args: string[]): Promise<Run> {
    return accountsWithInput(undefined, ...args);
  }
  /** The command with `input` on its standard input (closed at once when there is none). */
  function accountsWithInput(input: string | undefined, ...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      const child = execFile(
        'npm',
        ['run', '--silent', 'accounts', '--', ...args],
        { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', DATABASE_URL: database.url, HERALD_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, DEFAULT_TIMEZONE: 'America/Chicago' } },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(input ?? '');
    });
  }
  const add = (...extra: string[]) => accounts('add-imap', '--phone', '+14155552681', '--imap-url', dovecot.url, '--smtp-url', smtp.url, '--username', 'ana@herald.test', ...extra);

  it('fails clearly and saves nothing: a refused password, a server that is down, a bad URL, a missing option', async () => {
    const wrong = await add('--password', 'wrong');
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr.trim()).toBe('Not connected: The mail server refused this username and password. Many providers need an app password here, not your usual one.');
    const down = await accounts('add-imap', '--phone', '+14155552681', '--imap-url', 'imap://127.0.0.1:1', '--smtp-url', smtp.url, '--username', 'ana@herald.test', '--password', 'app-password');
    expect(down.code).toBe(1);
    expect(down.stderr.trim()).toBe('Not connected: The incoming (IMAP) server could not be reached or refused the connection. Check its address and port.');
    const badUrl = await accounts('add-imap', '--phone', '+14155552681', '--imap-url', 'https://mail.example.com', '--smtp-url', smtp.url, '--username', 'ana@herald.test', '--password', 'x');
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('--imap-url must be imaps://host:993 or imap://host:143 (got "https://mail.example.com").');
    const missing = await accounts('add-imap', '--phone', '+14155552681');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --imap-url, --smtp-url, --username, --password');
    expect(await database.prisma.connection.count()).toBe(0);
  });

  it('logs in to both servers, then saves the mailbox sealed (making the user); list shows it', async () => {
    const run = await add('--password', 'app-password');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [saved] = await database.prisma.connection.findMany();
    expect(run.stdout).toBe(`Connected 127.0.0.1 (ana@herald.test) for +14155552681 as their mailbox (connection ${saved!.id}).\n`);
    expect(saved).toMatchObject({ provider: 'imap', settings: { imapUrl: dovecot.url, smtpUrl: smtp.url, username: 'ana@herald.test', address: 'ana@herald.test' } });
    expect(saved!.secrets).not.toContain('app-password');
    expect(new SecretBox(Buffer.from(TEST_ENCRYPTION_KEY, 'base64')).openJson(saved!.secrets)).toEqual({ password: 'app-password' });
    const list = await accounts('list', '--phone', '+14155552681');
    expect(list.stdout).toContain(`${saved!.id}  imap  127.0.0.1 (ana@herald.test)  active, added by the operator (any address)`);
    // The operator owns the network: their mailbox on this machine keeps working in a Herald that
    // allows users nothing private (no CONNECT_ALLOWED_HOSTS), where a user could not connect it.
    expect(saved!.operatorTrusted).toBe(true);
    const harness = await HeraldHarness.start({ database, start: false, logLevel: 'warn' });
    try {
      const mailbox = await harness.herald.email.emails.mailboxOf(saved!.userId);
      if (mailbox.kind !== 'ready') throw new Error(mailbox.kind);
      expect(await harness.herald.email.emails.withMailbox(mailbox, (provider) => provider.search({}))).toMatchObject({ total: 0 });
      const asUser = await harness.herald.email.emails.connectImap(saved!.userId, { imapUrl: dovecot.url, smtpUrl: smtp.url, username: 'ana@herald.test', password: 'app-password', address: 'ana@herald.test' });
      expect(asUser).toEqual({ ok: false, field: 'imapUrl', error: OUTBOUND_REFUSED_MESSAGE });
    } finally {
      await harness.close();
    }
    const removed = await accounts('remove', '--phone', '+14155552681', '--provider', 'imap');
    expect(removed.code).toBe(0);
    expect(await database.prisma.connection.count()).toBe(0);
  });

  it('--password - reads the password from standard input (kept out of the process list); empty input is refused', async () => {
    const empty = await accountsWithInput('', 'add-imap', '--phone', '+14155552681', '--imap-url', dovecot.url, '--smtp-url', smtp.url, '--username', 'ana@herald.test', '--password', '-');
    expect(empty).toMatchObject({ code: 1, stderr: '--password - reads the password from standard input, and it was empty.\n' });
    expect(await database.prisma.connection.count()).toBe(0);
    const piped = await accountsWithInput('app-password\n', 'add-imap', '--phone', '+14155552681', '--imap-url', dovecot.url, '--smtp-url', smtp.url, '--username', 'ana@herald.test', '--password', '-');
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    const [saved] = await database.prisma.connection.findMany();
    expect(new SecretBox(Buffer.from(TEST_ENCRYPTION_KEY, 'base64')).openJson(saved!.secrets)).toEqual({ password: 'app-password' });
    await accounts('remove', '--phone', '+14155552681', '--provider', 'imap');
  });
});
