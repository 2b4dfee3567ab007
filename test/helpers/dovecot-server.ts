import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort } from './herald-process.js';

/** Where Debian's `dovecot-imapd` package puts the server (`.ci/run` installs it). */
const DOVECOT = process.env.HERALD_DOVECOT ?? '/usr/sbin/dovecot';

/** A mailbox user of the test server: its password and its address. */
export interface DovecotUser {
  password: string;
  address: string;
}

/** A mail to put into a mailbox, as raw RFC 5322 text (or bytes), with its arrival time and flags. */
export interface MailToDeliver {
  raw: string | Buffer;
  internalDate?: Date;
  seen?: boolean;
  folder?: string;
}

/**
 * A real Dovecot IMAP server (Debian's `dovecot-imapd`) for the tests: its own unprivileged
 * port on 127.0.0.1, plain-text login (no TLS), a passwd-file of users, each with its own
 * Maildir, all under a temporary directory removed on stop. Ready is when it accepts a
 * connection and greets, not a guessed delay. Mails are put in with IMAP APPEND as their
 * owner, or for bulk seeding written straight into the Maildir.
 */
export class DovecotServer {
  private constructor(
    readonly port: number,
    readonly users: Record<string, DovecotUser>,
    private readonly process: ChildProcess,
    private readonly directory: string,
    private readonly mailOwner: { uid: number; gid: number } | undefined,
    readonly log: () => string,
  ) {}

  /** `imap://127.0.0.1:<port>`: the URL a connection's settings name. */
  get url(): string {
    return `imap://127.0.0.1:${this.port}`;
  }

  static async start(users: Record<string, DovecotUser>): Promise<DovecotServer> {
    const directory = await mkdtemp(path.join(tmpdir(), 'herald-dovecot-'));
    const port = await freePort();
    const root = process.getuid?.() === 0;
    // As root, mail belongs to Debian's `dovecot` system user (Dovecot refuses uid 0 for
    // mail); as anyone else, everything runs as that user.
    const me = userInfo().username;
    const mailUser = root ? 'dovecot' : me;
    for (const name of ['run', 'state', 'mail']) await mkdir(path.join(directory, name), { recursive: true });
    await writeFile(path.join(directory, 'passwd'), Object.entries(users).map(([name, user]) => `${name}:{PLAIN}${user.password}`).join('\n') + '\n');
    const config = [
      `base_dir = ${directory}/run`,
      `state_dir = ${directory}/state`,
      'log_path = /dev/stderr',
      'protocols = imap',
      'listen = 127.0.0.1',
      'ssl = no',
      'disable_plaintext_auth = no',
      'auth_mechanisms = plain login',
      'auth_failure_delay = 0',
      'mail_max_userip_connections = 200',
      `mail_location = maildir:${directory}/mail/%u`,
      'first_valid_uid = 0',
      ...(root ? [] : [`default_internal_user = ${me}`, `default_login_user = ${me}`, `default_internal_group = ${userInfo().gid}`]),
      'passdb {',
      '  driver = passwd-file',
      `  args = scheme=PLAIN username_format=%u ${directory}/passwd`,
      '}',
      'userdb {',
      '  driver = static',
      `  args = uid=${mailUser} gid=${root ? 'dovecot' : userInfo().gid} home=${directory}/mail/%u`,
      '}',
      'service imap-login {',
      '  inet_listener imap {',
      `    port = ${port}`,
      '  }',
      '  inet_listener imaps {',
      '    port = 0',
      '  }',
      '}',
      // A Sent folder is a special-use \Sent mailbox when it exists; it is not created
      // automatically, so the provider's "create it if missing" path is exercised.
      'namespace inbox {',
      '  inbox = yes',
      '  separator = /',
      '  mailbox Sent {',
      '    special_use = \\Sent',
      '  }',
      '}',
    ].join('\n');
    await writeFile(path.join(directory, 'dovecot.conf'), config);
    let mailOwner: { uid: number; gid: number } | undefined;
    if (root) {
      mailOwner = await systemUser('dovecot');
      // mkdtemp makes the directory 0700: the mail user must be able to reach its Maildir.
      await chmod(directory, 0o755);
      await chown(path.join(directory, 'mail'), mailOwner.uid, mailOwner.gid);
    }
    let output = '';
    let started: () => void = () => undefined;
    // The master logs "starting up" once its listeners are bound.
    const startedUp = new Promise<void>((resolve) => {
      started = resolve;
    });
    const child = spawn(DOVECOT, ['-F', '-c', path.join(directory, 'dovecot.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => {
      // Kept whole: tests count logins in it (a few hundred bytes each).
      output += chunk.toString();
      if (/master: Info: Dovecot v\S+ .*starting up/.test(output)) started();
    });
    child.stdout?.resume();
    const exited = new Promise<never>((_resolve, reject) => {
      child.once('error', (error) => reject(new Error(`Dovecot could not start (${error.message}); install Debian's dovecot-imapd package (.ci/run does)`)));
      child.once('exit', (code) => reject(new Error(`Dovecot exited with code ${code} before it was ready:\n${output}`)));
    });
    exited.catch(() => undefined);
    await Promise.race([startedUp.then(() => greeting(port)), exited]);
    return new DovecotServer(port, users, child, directory, mailOwner, () => output);
  }

  /** A logged-in IMAP client for `user` (the test's own, to inspect or fill a mailbox). */
  async client(user: string): Promise<ImapFlow> {
    const client = new ImapFlow({ host: '127.0.0.1', port: this.port, secure: false, auth: { user, pass: this.users[user]!.password }, logger: false, disableAutoIdle: true });
    await client.connect();
    return client;
  }

  /** Puts mails into `user`'s mailbox (INBOX unless a folder is named) with IMAP APPEND; returns their UIDs. */
  async deliver(user: string, ...mails: MailToDeliver[]): Promise<number[]> {
    const client = await this.client(user);
    try {
      const uids: number[] = [];
      for (const mail of mails) {
        const folder = mail.folder ?? 'INBOX';
        if (folder !== 'INBOX') await client.mailboxCreate(folder).catch(() => undefined);
        const appended = await client.append(folder, mail.raw, mail.seen ? ['\\Seen'] : [], mail.internalDate ?? new Date());
        if (appended && appended.uid !== undefined) uids.push(appended.uid);
      }
      return uids;
    } finally {
      await client.logout();
    }
  }

  /**
   * Writes mails straight into `user`'s INBOX Maildir (thousands in a second; Dovecot
   * indexes them on the next SELECT). Unread unless `seen`.
   */
  async seedMaildir(user: string, mails: Array<{ raw: string | Buffer; seen?: boolean; internalDate?: Date }>): Promise<void> {
    const inbox = path.join(this.directory, 'mail', user);
    for (const sub of ['cur', 'new', 'tmp']) await mkdir(path.join(inbox, sub), { recursive: true });
    const { utimes } = await import('node:fs/promises');
    let index = 0;
    for (const mail of mails) {
      index += 1;
      const name = `${Math.floor(Date.now() / 1000)}.M${index}P${process.pid}.herald-test`;
      const file = mail.seen ? path.join(inbox, 'cur', `${name}:2,S`) : path.join(inbox, 'new', name);
      await writeFile(file, mail.raw);
      if (mail.internalDate) await utimes(file, mail.internalDate, mail.internalDate);
    }
    if (this.mailOwner) await chownTree(inbox, this.mailOwner);
  }

  /** The mails in a user's folder, raw, oldest first. */
  async messages(user: string, folder = 'INBOX'): Promise<Array<{ uid: number; raw: string; flags: string[] }>> {
    const client = await this.client(user);
    try {
      const lock = await client.getMailboxLock(folder);
      try {
        const found: Array<{ uid: number; raw: string; flags: string[] }> = [];
        const status = client.mailbox;
        if (!status || status.exists === 0) return [];
        for await (const message of client.fetch('1:*', { uid: true, source: true, flags: true })) {
          found.push({ uid: message.uid, raw: message.source?.toString('utf8') ?? '', flags: [...(message.flags ?? [])] });
        }
        return found;
      } finally {
        lock.release();
      }
    } catch (error) {
      if (error instanceof Error && /Mailbox doesn't exist|NONEXISTENT/i.test(`${error.message} ${(error as { responseText?: string }).responseText ?? ''}`)) return [];
      throw error;
    } finally {
      await client.logout();
    }
  }

  /** Folder names of a user's mailbox with their special uses. */
  async folders(user: string): Promise<Array<{ path: string; specialUse?: string }>> {
    const client = await this.client(user);
    try {
      return (await client.list()).map((entry) => ({ path: entry.path, ...(entry.specialUse ? { specialUse: entry.specialUse } : {}) }));
    } finally {
      await client.logout();
    }
  }

  async stop(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      const exited = new Promise((resolve) => this.process.once('exit', resolve));
      this.process.kill('SIGTERM');
      await exited;
    }
    await rm(this.directory, { recursive: true, force: true });
  }
}

/** Resolves when the server on `port` sends its IMAP greeting. */
async function greeting(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('data', (data) => {
      socket.destroy();
      if (data.toString().startsWith('* OK')) resolve();
      else reject(new Error(`unexpected greeting: ${data.toString()}`));
    });
    socket.once('error', reject);
  });
}

async function systemUser(name: string): Promise<{ uid: number; gid: number }> {
  const { readFile } = await import('node:fs/promises');
  const line = (await readFile('/etc/passwd', 'utf8')).split('\n').find((entry) => entry.startsWith(`${name}:`));
  if (!line) throw new Error(`no "${name}" system user: install Debian's dovecot-imapd package`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function chownTree(directory: string, owner: { uid: number; gid: number }): Promise<void> {
  const { readdir } = await import('node:fs/promises');
  await chown(directory, owner.uid, owner.gid);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) await chownTree(full, owner);
    else await chown(full, owner.uid, owner.gid);
  }
}
