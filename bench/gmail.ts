/**
 * Gmail benchmark (issue 10): email-agent's tools on a Gmail mailbox, through the official
 * client (@googleapis/gmail) against the fake Gmail API holding 10,000 messages. The fake
 * answers at once, so the figures are Herald's own cost (the client, OAuth, reading each
 * match's MIME parts, the views) and the number of HTTP round trips each call makes, which is
 * what dominates against Google itself (~50-150 ms each, five in parallel). p50/p95 after a
 * warm-up: search_emails by sender (10 shown), unread since yesterday, and get_emails of 5.
 * Then the tokens "summarise my unread" shows the model with 50 unread (the views are the
 * IMAP provider's, so this should match `npm run bench -- email`).
 * Targets: search p95 under 500 ms and get p95 under 300 ms on the local fake.
 */
import { emailAgent } from '../src/agents/email/email-agent.js';
import { ConnectLinks } from '../src/connections/connect-links.js';
import { ConnectionStore } from '../src/connections/connection-store.js';
import { GoogleAccounts } from '../src/connections/google-accounts.js';
import { SecretBox } from '../src/connections/secret-box.js';
import { connectDatabase } from '../src/db/database.js';
import { EmailService } from '../src/email/email-service.js';
import { gmailFactory } from '../src/email/gmail-mailbox.js';
import { GMAIL_SCOPES } from '../src/email/gmail-provider.js';
import type { Logger } from '../src/logging/logger.js';
import { systemClock } from '../src/shared/clock.js';
import { randomIds } from '../src/shared/ids.js';
import { estimateTokens } from '../src/shared/tokens.js';
import type { ToolContext, ToolDefinition } from '../src/tools/tool.js';
import { FakeGoogleServer } from '../test/fakes/fake-google-server.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { call, mail, MESSAGES, RUNS, senders, timed, UNREAD, WARM_UP } from './support/mailbox-fixtures.js';
import { banner, ms, percentile, table } from './support/report.js';
import { loopbackPolicy } from '../test/helpers/outbound.js';

const ZONE = 'America/New_York';
const SEARCH_TARGET_MS = 500;
const GET_TARGET_MS = 300;

export const gmailBenchmark: Benchmark = {
  name: 'gmail',
  description: `Email tools on Gmail (official client, fake Gmail API with ${MESSAGES} messages): search and get p50/p95 and HTTP round trips per call; "summarise my unread" tokens with ${UNREAD} unread`,
  async run({ postgres, logger, print }) {
    print(banner(`Gmail (${MESSAGES} messages; ×${RUNS} each after ${WARM_UP} warm-up calls; a local fake Gmail API)`));
    const databaseInfo = await postgres.createMigratedDatabase('gmail', logger);
    const database = connectDatabase(databaseInfo.url, 5);
    const google = await FakeGoogleServer.start();
    const checks: Check[] = [];
    try {
      const now = Date.now();
      const box = new SecretBox(Buffer.alloc(32, 8));
      const connections = new ConnectionStore(database.prisma, box, systemClock);
      const links = new ConnectLinks(database.prisma, box, systemClock, { ttlMinutes: 15, publicBaseUrl: 'https://herald.bench' });
      const env = google.env();
      const accounts = new GoogleAccounts(
        { clientId: env.GOOGLE_CLIENT_ID!, clientSecret: env.GOOGLE_CLIENT_SECRET!, authUrl: env.GOOGLE_OAUTH_AUTH_URL!, tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL!, revokeUrl: env.GOOGLE_OAUTH_REVOKE_URL!, apiBaseUrl: env.GOOGLE_API_BASE_URL! },
        'https://herald.bench/oauth/google/callback',
        connections,
        logger,
      );
      const emails = new EmailService({ connections, clock: systemClock, ids: randomIds, timeoutMs: 30_000, outbound: loopbackPolicy(), logger });
      emails.addFactory({ ...gmailFactory({ google: accounts, timeoutMs: 30_000, clock: systemClock, ids: randomIds }), keepsConnectionOnRefusal: true });
      const agent = emailAgent({ emails, links });
      const tool = (name: string) => agent.tools.find((candidate) => candidate.name === name)!;
      const contextFor = async (address: string, phone: string): Promise<ToolContext> => {
        const row = await database.prisma.user.create({ data: { phone, timezone: ZONE, updatedAt: new Date() } });
        const scope = ['openid', 'email', ...GMAIL_SCOPES].join(' ');
        await connections.save(row.id, { provider: 'google', account: address, label: `Google (${address})`, scopes: scope.split(' '), settings: {}, secrets: google.grant(address, scope) });
        return { userId: row.id, timezone: ZONE, clock: systemClock, logger: logger as Logger };
      };

      const seeding = performance.now();
      for (let index = 0; index < MESSAGES; index += 1) {
        const date = new Date(now - (MESSAGES - index) * 60_000);
        google.gmail.deliver('big@bench.example', mail(index, date, 'big@bench.example'), { date, unread: index >= MESSAGES - 200 });
      }
      for (let index = 0; index < UNREAD; index += 1) {
        const date = new Date(now - (UNREAD - index) * 600_000);
        google.gmail.deliver('unread@bench.example', mail(index, date, 'unread@bench.example'), { date });
      }
      print(`seeded ${MESSAGES + UNREAD} messages in the fake in ${ms(performance.now() - seeding)} ms`);
      const big = await contextFor('big@bench.example', '+14155550301');

      const rows: Array<Array<string | number>> = [];
      let ids: string[] = [];
      const cases: Array<[string, unknown]> = [
        ['search_emails from: dana (1,250 match, 10 shown)', { from: 'dana@example.com' }],
        ['search_emails unread since yesterday (200 match, 10 shown)', { unread: true, since: new Date(now - 86_400_000).toISOString().slice(0, 10) }],
      ];
      for (const [name, input] of cases) {
        const before = google.apiRequests.length;
        const output = await call(tool('search_emails'), input, big);
        const requests = google.apiRequests.length - before;
        if (ids.length === 0) ids = [...output.matchAll(/id=([0-9a-f]+)/g)].map((match) => match[1]!).slice(0, 5);
        const samples = await timed(RUNS, () => call(tool('search_emails'), input, big));
        rows.push([name, requests, ms(percentile(samples, 0.5)), ms(percentile(samples, 0.95))]);
        checks.push({ name: `${name}: p95`, target: `< ${SEARCH_TARGET_MS} ms`, measured: `${ms(percentile(samples, 0.95))} ms`, pass: percentile(samples, 0.95) < SEARCH_TARGET_MS, kind: 'target' });
      }
      const firstSearch = await call(tool('search_emails'), { from: 'dana@example.com' }, big);
      const total = Number(/: (\d+) emails match/.exec(firstSearch)?.[1] ?? 0);
      checks.push({ name: 'search by sender counts every match', target: String(MESSAGES / senders.length), measured: String(total), pass: total === MESSAGES / senders.length, kind: 'correctness' });
      const beforeGet = google.apiRequests.length;
      await call(tool('get_emails'), { ids }, big);
      const getRequests = google.apiRequests.length - beforeGet;
      const get = await timed(RUNS, () => call(tool('get_emails'), { ids }, big));
      rows.push(['get_emails (5 messages in full)', getRequests, ms(percentile(get, 0.5)), ms(percentile(get, 0.95))]);
      checks.push({ name: 'get_emails of 5: p95', target: `< ${GET_TARGET_MS} ms`, measured: `${ms(percentile(get, 0.95))} ms`, pass: percentile(get, 0.95) < GET_TARGET_MS, kind: 'target' });
      checks.push({ name: 'attachment bytes fetched', target: '0', measured: String(google.gmail.attachmentRequests.length), pass: google.gmail.attachmentRequests.length === 0, kind: 'correctness' });
      print(table(['call', 'HTTP requests', 'p50 ms', 'p95 ms'], rows));

      const unread = await contextFor('unread@bench.example', '+14155550302');
      const listing = await call(tool('search_emails'), { unread: true, limit: 25 }, unread);
      const listed = Number(/: (\d+) emails match/.exec(listing)?.[1] ?? 0);
      print(table(['what the model reads ("summarise my unread", ~4 chars/token)', 'tokens'], [[`search_emails unread (${UNREAD} match, 25 listed)`, estimateTokens(listing)]]));
      checks.push({ name: 'unread count reported in full', target: String(UNREAD), measured: String(listed), pass: listed === UNREAD, kind: 'correctness' });
      checks.push({ name: '"summarise my unread" listing', target: '< 3000 tokens', measured: `${estimateTokens(listing)} tokens`, pass: estimateTokens(listing) < 3000, kind: 'target' });
    } finally {
      await google.close();
      await database.close();
    }
    return { checks };
  },
};
