import { randomUUID } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import pg from 'pg';
import type { ToolCatalog } from './model-program.js';
import { readToolCatalog } from './tool-catalog.js';
import { seedUser, type MailboxConnection, type SeededIds } from './user-seed.js';
import { DovecotServer } from '../../helpers/dovecot-server.js';
import { eventually } from '../../helpers/eventually.js';
import { HeraldHarness } from '../../helpers/herald-harness.js';
import { freePort } from '../../helpers/herald-process.js';
import { LOOPBACK_ALLOWED } from '../../helpers/outbound.js';
import { SmtpReceiver } from '../../helpers/smtp-receiver.js';
import { createTestDatabase } from '../../helpers/test-database.js';
import { rawMail } from '../../email/mail-fixtures.js';

const ZONE = 'America/New_York';
/** In everything B owns that is text (a note's body, a fact, an email): never in A's prompts or replies. */
export const B_SECRET = `BSECRET-${randomUUID().slice(0, 8)}`;
/** The mailboxes: every A shares `ana`'s; `bea` is B's. */
const MAILBOXES = { ana: { password: 'ana-pw', address: 'ana@herald.test' }, bea: { password: 'bea-pw', address: 'bea@herald.test' } };

/** One run's user A: who they are and what was seeded for them. */
export interface UserA {
  id: string;
  phone: string;
  /** Where their texts come from and replies go: the phone, or `whatsapp:` and the phone. */
  address: string;
  name: string;
  ids: SeededIds;
}

/** What property (c) compares before and after a run: the rows only a YES may delete or change. */
export interface GuardedState {
  connections: string;
  calendarSettings: string;
  notes: string[];
  contacts: string[];
  /** Seeded built-in events: id with start and end (moving needs YES). */
  events: string[];
}

/**
 * Everything the model fuzz runs against: a real Herald (webhook, turn queue, orchestrator,
 * outbox; real Postgres) with the fake Twilio and Anthropic servers, a real Dovecot with the
 * repo's SMTP receiver for mail, user B seeded once with one of everything, and a fresh user A
 * per run seeded the same way.
 */
export class FuzzWorld {
  private userCounter = 0;
  /** Every A phone so far (E.164): the only numbers Herald may ever text. */
  readonly phones = new Set<string>();
  private constructor(
    readonly harness: HeraldHarness,
    readonly dovecot: DovecotServer,
    readonly smtp: SmtpReceiver,
    readonly userB: { id: string; phone: string; ids: SeededIds },
    private readonly mailIds: { ana: string[]; bea: string[] },
    private readonly closedPort: number,
  ) {}

  static async start(logLevel: string): Promise<FuzzWorld> {
    const dovecot = await DovecotServer.start(MAILBOXES);
    const smtp = await SmtpReceiver.start(dovecot);
    // This file's own database, without waiting for each commit's flush to disk: a run makes
    // dozens of commits, and crash durability is not what this fuzz tests.
    const database = await createTestDatabase(20);
    // Before the pool opens any connection: the setting applies to sessions that start after it.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${database.name}" SET synchronous_commit = off`);
    await admin.end();
    const harness = await HeraldHarness.start({
      database,
      logLevel,
      env: {
        CONNECT_ALLOWED_HOSTS: LOOPBACK_ALLOWED,
        CALENDAR_TIMEOUT_MS: '3000',
        // Budgets are not what this fuzz is about: a run of huge prompts must not leave A's next text unanswered.
        USER_DAILY_BUDGET_USD: '100000',
        NEW_USERS_PER_HOUR: '1000000',
        // An "on it" is a second message by design; a slow machine must not turn it into a failure here.
        PROGRESS_AFTER_MS: '600000',
        // A slow answer (model-program.ts `slow`) runs a step, or the whole plan, out of time now and then.
        STEP_TIMEOUT_MS: '1500',
        PLAN_TIMEOUT_MS: '5000',
      },
    });
    const mail = (to: keyof typeof MAILBOXES, subject: string, text: string) =>
      rawMail({ from: { name: 'Dana Levi', address: 'dana@herald.test' }, to: MAILBOXES[to].address, subject, text, date: new Date(Date.now() - 3_600_000) });
    await dovecot.deliver('ana', { raw: await mail('ana', 'Dinner', 'Dinner at 8?') }, { raw: await mail('ana', 'Trip', 'Can we do the 14th?') }, { raw: await mail('ana', 'Newsletter', 'Weekly news') });
    await dovecot.deliver('bea', { raw: await mail('bea', 'Bea private', `Only for Bea: ${B_SECRET}`) });
    const closedPort = await freePort();
    const bPhone = '+14155559000';
    const b = await harness.database.prisma.user.create({ data: { phone: bPhone, name: 'Bea', timezone: ZONE, timezoneSource: 'user', language: 'en', updatedAt: new Date() } });
    const world = new FuzzWorld(harness, dovecot, smtp, { id: b.id, phone: bPhone, ids: {} }, { ana: [], bea: [] }, closedPort);
    world.userB.ids = await seedUser(harness, b.id, { who: 'Bea', secret: B_SECRET, zone: ZONE, mailbox: world.mailbox('bea') });
    world.mailIds.bea = await world.mailboxIds(b.id);
    // A's shared mailbox: its ids are the same for every A.
    const probe = await harness.database.prisma.user.create({ data: { phone: '+14155559001', name: 'Probe', timezone: ZONE, timezoneSource: 'user', language: 'en', updatedAt: new Date() } });
    await harness.herald.calendar.connections.save(probe.id, world.mailbox('ana'));
    world.mailIds.ana = await world.mailboxIds(probe.id);
    await harness.database.prisma.user.delete({ where: { id: probe.id } });
    return world;
  }

  /**
   * A fresh user A with one of everything; their calendar built in (with events) or a CalDAV
   * one whose server is down. The next one is seeded while this one's run goes on: a run mostly
   * waits on Postgres, so the two overlap instead of adding up.
   */
  async newUserA(channel: 'sms' | 'whatsapp', calendar: 'builtin' | 'caldav-down'): Promise<UserA> {
    const next = this.nextUser ?? this.seedUserA();
    this.nextUser = this.seedUserA();
    // A failed background seed is this run's failure, not an unhandled rejection.
    this.nextUser.catch(() => {});
    const user = await next;
    if (calendar === 'caldav-down') user.ids.connection = await this.connectDownCalendar(user.id);
    return { ...user, address: channel === 'whatsapp' ? `whatsapp:${user.phone}` : user.phone };
  }

  private nextUser: Promise<Omit<UserA, 'address'>> | undefined;

  private async seedUserA(): Promise<Omit<UserA, 'address'>> {
    this.userCounter += 1;
    const phone = `+1415${String(2_000_000 + this.userCounter).padStart(7, '0')}`;
    // Unique: the fake routes each request to its user's program by the name in the prompt.
    const name = `Ana-${this.userCounter}`;
    this.phones.add(phone);
    const user = await this.harness.database.prisma.user.create({ data: { phone, name, timezone: ZONE, timezoneSource: 'user', language: 'en', updatedAt: new Date() } });
    return { id: user.id, phone, name, ids: await seedUser(this.harness, user.id, { who: 'Ana', zone: ZONE, mailbox: this.mailbox('ana') }) };
  }

  /** Makes the user's calendar a CalDAV connection whose server is not there (the calendar tools fail; disconnecting it is a connection change). */
  private async connectDownCalendar(userId: string): Promise<string> {
    const { herald } = this.harness;
    const url = `http://127.0.0.1:${this.closedPort}/`;
    const connection = await herald.calendar.connections.save(userId, { provider: 'caldav', account: 'ana@127.0.0.1', label: 'Down (ana)', settings: { serverUrl: url, username: 'ana', calendarUrl: `${url}cal/`, calendarName: 'Down' }, secrets: { password: 'pw' } });
    await herald.calendar.calendars.useConnection(userId, connection.id);
    return connection.id;
  }

  /** `@@A.note@@` and `@@B.mail1@@` as the ids they stand for (a placeholder with no row stays as written). */
  resolver(a: SeededIds): (text: string) => string {
    const b = this.userB.ids;
    return (text) =>
      text.includes('@@')
        ? text.replace(/@@([AB])\.(\w+)@@/g, (whole, who: string, key: string) => (who === 'A' ? a[key] : b[key]) ?? (key.startsWith('mail') ? this.mailIds[who === 'A' ? 'ana' : 'bea'][Number(key.slice(4))] : undefined) ?? whole)
        : text;
  }

  /**
   * Resolves once everything the user sent is answered and delivered and no worker holds
   * their lease: nothing of theirs is still working. Polled every few milliseconds (as
   * harness.idle() does every 50), since a run waits for this twice or more. Unlike other
   * tests' waits it has a deadline, `silenceMs`, far past any turn's own limits (the plan's
   * 5 s, the composer's 15 s): a run still unanswered then is the silence property (a)
   * forbids, told as such, rather than a fuzz of thousands of runs stuck until its timeout.
   */
  async settled(userId: string, phone: string, silenceMs: number): Promise<void> {
    const { prisma } = this.harness.database;
    let stop = false;
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        stop = true;
        reject(new Error(`${phone} got no (complete) answer within ${silenceMs} ms: silence`));
      }, silenceMs);
    });
    const answered = eventually(
      async () => {
        if (stop) return true;
        const [pending, user, undelivered] = await Promise.all([
          prisma.message.count({ where: { userId, role: 'user', inboundStatus: 'pending' } }),
          prisma.user.findUniqueOrThrow({ where: { id: userId }, select: { turnLeaseOwner: true } }),
          this.harness.herald.outbox.hasUndelivered(userId),
        ]);
        return pending === 0 && user.turnLeaseOwner === null && !undelivered ? true : undefined;
      },
      `${phone}'s texts all answered, sent, and its lease released`,
      5,
    );
    try {
      await Promise.race([answered, silence]);
    } finally {
      clearTimeout(timer);
      stop = true;
      await answered;
    }
  }

  /**
   * Deletes a finished run's user A (and with it their reminders and routines, so nothing of
   * theirs calls the model later), in the background of the next run; close() waits for it.
   */
  dropUser(userId: string): void {
    this.drops.push(this.harness.database.prisma.user.delete({ where: { id: userId } }).then(() => undefined));
  }

  private readonly drops: Array<Promise<void>> = [];

  /** The YES-guarded state of user A (property c). */
  async guardedState(userId: string): Promise<GuardedState> {
    const { prisma } = this.harness.database;
    const [connections, settings, notes, contacts, events] = await Promise.all([
      prisma.connection.findMany({ where: { userId }, orderBy: { id: 'asc' }, select: { id: true, provider: true, account: true, settings: true, secrets: true, status: true, updatedAt: true } }),
      prisma.calendarSettings.findUnique({ where: { userId }, select: { connectionId: true, feedGeneration: true, feedTokenHash: true } }),
      prisma.note.findMany({ where: { userId }, select: { id: true } }),
      prisma.contact.findMany({ where: { userId }, select: { id: true } }),
      prisma.calendarEvent.findMany({ where: { userId }, select: { id: true, startsAt: true, endsAt: true } }),
    ]);
    return {
      connections: JSON.stringify(connections),
      calendarSettings: JSON.stringify(settings),
      notes: notes.map((note) => note.id).sort(),
      contacts: contacts.map((contact) => contact.id).sort(),
      events: events.map((event) => `${event.id} ${event.startsAt.toISOString()} ${event.endsAt?.toISOString() ?? ''}`).sort(),
    };
  }

  /**
   * Everything stored for a user, one digest per table: their User row, every table with a
   * user id (Herald's and the search index's), their list items, and queued jobs naming them.
   * The tables are read from the catalog, so a table added later is covered too.
   */
  async snapshot(userId: string): Promise<Map<string, string>> {
    const { pool } = this.harness.database;
    this.snapshotSql ??= await (async () => {
      const { rows } = await pool.query<{ table_schema: string; table_name: string; column_name: string }>(
        `SELECT table_schema, table_name, column_name FROM information_schema.columns
          WHERE column_name IN ('userId', 'user_id') AND table_schema IN ('public', 'herald_search') ORDER BY table_schema, table_name`,
      );
      const digest = (label: string, from: string, where: string) =>
        `SELECT '${label}' AS name, count(*)::int AS count, md5(coalesce(string_agg(to_jsonb(t)::text, ',' ORDER BY to_jsonb(t)::text), '')) AS digest FROM ${from} t WHERE ${where}`;
      return [
        digest('User', '"User"', 'id = $1::uuid'),
        ...rows.map((row) => digest(`${row.table_schema}.${row.table_name}`, `"${row.table_schema}"."${row.table_name}"`, `"${row.column_name}" = $1::uuid`)),
        digest('ListItem', '"ListItem"', '"listId" IN (SELECT id FROM "List" WHERE "userId" = $1::uuid)'),
        digest('pgboss.job', '(SELECT name, state, data, start_after, singleton_key FROM pgboss.job)', `data::text LIKE '%' || $1::text || '%'`),
      ].join('\nUNION ALL\n');
    })();
    const { rows } = await pool.query<{ name: string; count: number; digest: string }>(this.snapshotSql, [userId]);
    return new Map(rows.map((row) => [row.name, `${row.count} rows, ${row.digest}`]));
  }

  private snapshotSql: string | undefined;

  /** Messages in every folder of a mailbox (deleting mail needs YES; every A shares `ana`'s). */
  async mailCount(user: keyof typeof MAILBOXES): Promise<number> {
    const client = new ImapFlow({ host: '127.0.0.1', port: this.dovecot.port, secure: false, auth: { user, pass: MAILBOXES[user].password }, logger: false });
    await client.connect();
    try {
      let total = 0;
      for (const folder of await client.list()) {
        if (folder.flags.has('\\Noselect')) continue;
        const status = await client.status(folder.path, { messages: true });
        total += status ? (status.messages ?? 0) : 0;
      }
      return total;
    } finally {
      await client.logout();
    }
  }

  /** A mailbox connection's fields for the test Dovecot and SMTP receiver. */
  private mailbox(name: keyof typeof MAILBOXES): MailboxConnection {
    const { password, address } = MAILBOXES[name];
    return { provider: 'imap', account: `${name}@127.0.0.1`, label: `Test Mail (${address})`, settings: { imapUrl: this.dovecot.url, smtpUrl: this.smtp.url, username: name, address }, secrets: { password } };
  }

  /** The ids of the mails in a user's inbox, as the email tools give them. */
  private async mailboxIds(userId: string): Promise<string[]> {
    const { emails } = this.harness.herald.email;
    const lookup = await emails.mailboxOf(userId);
    if (lookup.kind !== 'ready') throw new Error(`the seeded mailbox is not ready: ${lookup.kind}`);
    const found = await emails.withMailbox(lookup, (provider) => provider.search({ limit: 10 }));
    return found.messages.map((message) => message.id);
  }

  /** The tools Herald offers each role, read off a warm-up turn (tool-catalog.ts). */
  async toolCatalog(): Promise<ToolCatalog> {
    const user = await this.newUserA('sms', 'builtin');
    const catalog = await readToolCatalog(this.harness, user.phone);
    this.dropUser(user.id);
    return catalog;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.drops, this.nextUser]);
    await this.harness?.close();
    await this.harness?.database.drop();
    await this.smtp?.stop();
    await this.dovecot?.stop();
  }
}
