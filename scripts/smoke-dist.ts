/**
 * `npm run smoke` (after `npm run build`): proves the production artifact, in the form the
 * Docker image ships it, by booting it and making it answer a text.
 *
 * 1. Lays out the image's /app (package.json, dist/, prisma/migrations, node_modules after
 *    `npm prune --omit=dev`) in a temporary directory outside the checkout.
 * 2. Checks dist/'s import graph: every relative import names a .js file that exists, every
 *    package is a runtime dependency that resolves in the pruned node_modules, every module has
 *    its source map, and a thrown error's stack points at the TypeScript source; a vCard is
 *    parsed in a parse worker thread started from dist/.
 * 3. Start-up faults: without production settings the server exits 78 listing each missing
 *    variable and printing no secret; with Postgres unreachable it retries, then exits 1.
 * 4. Boots `node dist/server.js` with NODE_ENV=production against a fresh database (migrated
 *    from dist/'s path), the fake Twilio and Anthropic servers, sends one correctly signed
 *    webhook and waits for the reply to reach the fake Twilio.
 * 5. Sends SIGTERM while a second turn waits on the model: the reply still goes out, once, and
 *    the process exits 0 within the shutdown grace period.
 *
 * Each step prints its name and time; a failure names the step, says what broke and shows the
 * server's last lines. Postgres: SMOKE_DATABASE_URL or TEST_DATABASE_URL (a server where this
 * user may create databases), otherwise a throwaway embedded one.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import twilio from 'twilio';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabaseServer } from '../src/db/embedded-postgres.js';
import { createSilentLogger } from '../src/logging/logger.js';
import { FakeAnthropicServer } from '../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import { freePort } from '../test/helpers/herald-process.js';
import { startCompiledServer, runCompiledServerToExit, type CompiledServer } from './smoke/compiled-server.js';
import { checkImportGraph } from './smoke/import-graph.js';
import { stageImage, type StagedImage } from './smoke/stage-image.js';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OWNER = '+14155550199';
const HERALD_NUMBER = '+15005550006';
const SHUTDOWN_GRACE_MS = 10_000;
const cleanups: Array<() => Promise<unknown>> = [];
let server: CompiledServer | undefined;

class SmokeFailure extends Error {}

async function step<Result>(name: string, work: () => Promise<Result>): Promise<Result> {
  const started = performance.now();
  process.stdout.write(`smoke: ${name} ... `);
  try {
    const result = await work();
    process.stdout.write(`ok (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
    return result;
  } catch (error) {
    process.stdout.write('FAILED\n');
    const reason = error instanceof Error ? error.message : String(error);
    const tail = server ? `\n\nthe compiled server's last lines:\n${server.output.slice(-25).join('\n')}` : '';
    throw new SmokeFailure(`smoke step "${name}" failed: ${reason}${tail}`);
  }
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

async function main(): Promise<void> {
  const startedAt = performance.now();
  await step('dist/ was built', async () => {
    check(existsSync(path.join(repository, 'dist', 'server.js')), 'dist/server.js is missing: run `npm run build` first');
    check(existsSync(path.join(repository, 'dist', 'generated', 'prisma', 'client.js')), 'dist/generated/prisma/client.js is missing: the generated Prisma client was not compiled');
  });

  const image: StagedImage = await step('lay out the image (npm prune --omit=dev)', () => stageImage(repository));
  cleanups.push(() => image.remove());

  await step('dist/ imports resolve with runtime dependencies only; source maps present', async () => {
    const { modules, problems } = await checkImportGraph(image.root);
    check(modules > 50, `only ${modules} modules in dist/`);
    check(problems.length === 0, problems.map((problem) => `${problem.file}: "${problem.specifier}" ${problem.problem}`).join('\n'));
  });

  await step('parses a vCard in a worker thread, loading its code from dist/', async () => {
    // The pool finds its worker and the parser by URL next to itself: in dist/ they are .js files
    // started without tsx, which only the compiled build exercises.
    const url = (file: string) => pathToFileURL(path.join(image.root, 'dist', file)).href;
    const { ParseWorkers } = (await import(url('shared/parse-workers.js'))) as typeof import('../src/shared/parse-workers.js');
    const workers = new ParseWorkers({ size: 1 });
    try {
      const card = 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Dana Katz\r\nTEL:+14155550123\r\nEND:VCARD\r\n';
      const prepared = await workers.run<{ contacts: Array<{ name: string; phones: string[] }> }>(new URL(url('contacts/contact-import-preparation.js')), 'prepareVcardImport', [[card]]);
      check(prepared.contacts.length === 1 && prepared.contacts[0]?.name === 'Dana Katz', `unexpected parse: ${JSON.stringify(prepared)}`);
    } finally {
      await workers.close();
    }
  });

  await step('stack traces point at the TypeScript source', async () => {
    const script = "import { loadConfig } from './dist/config/config.js'; try { loadConfig({ PORT: 'not-a-port' }); } catch (error) { console.log(error.stack); }";
    const { stdout } = await promisify(execFile)(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], { cwd: image.root });
    check(/src\/config\/config\.ts:\d+/.test(stdout), `expected a frame in src/config/config.ts, got:\n${stdout}`);
  });

  await step('refuses to start without production settings, listing each and printing no secret', async () => {
    const secret = 'sk-ant-smoke-secret-never-printed';
    const { code, output } = await runCompiledServerToExit(image.root, { ANTHROPIC_API_KEY: secret, DATABASE_URL: 'postgresql://smoke:pw-never-printed@127.0.0.1:1/x' }, 30_000);
    check(code === 78, `expected exit code 78 (EX_CONFIG), got ${code}:\n${output}`);
    for (const variable of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'PUBLIC_BASE_URL', 'HERALD_ENCRYPTION_KEY']) {
      check(output.includes(variable), `the error does not name ${variable}:\n${output}`);
    }
    check(!output.includes(secret) && !output.includes('pw-never-printed'), 'a secret was printed');
  });

  const twilioFake = await FakeTwilioServer.start();
  const anthropic = await FakeAnthropicServer.start();
  cleanups.push(() => twilioFake.close(), () => anthropic.close());
  const port = await freePort();
  const publicBaseUrl = `http://127.0.0.1:${port}`;
  const productionEnv = {
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: publicBaseUrl,
    TWILIO_ACCOUNT_SID: twilioFake.accountSid,
    TWILIO_AUTH_TOKEN: twilioFake.authToken,
    TWILIO_SMS_FROM: HERALD_NUMBER,
    TWILIO_API_BASE_URL: twilioFake.url,
    ANTHROPIC_API_KEY: 'sk-ant-smoke',
    ANTHROPIC_BASE_URL: anthropic.url,
    HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    OWNER_PHONES: OWNER,
    SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
    LOG_LEVEL: 'info',
  };

  await step('gives up on an unreachable database: retries, then exits 1 naming the server', async () => {
    const closedPort = await freePort();
    const { code, output } = await runCompiledServerToExit(
      image.root,
      { ...productionEnv, DATABASE_URL: `postgresql://smoke:pw-never-printed@127.0.0.1:${closedPort}/herald`, DATABASE_CONNECT_TIMEOUT_MS: '2500' },
      30_000,
    );
    check(code === 1, `expected exit code 1, got ${code}:\n${output}`);
    check(output.includes(`Could not reach the database at 127.0.0.1:${closedPort}`), `no clear error:\n${output}`);
    check(output.includes('retrying'), `no retry was logged:\n${output}`);
    check(!output.includes('pw-never-printed'), 'the database password was printed');
  });

  const databaseUrl = await step('a fresh database', () => freshDatabase());

  server = await step('boots: migrations from dist/, listening, ready', async () => {
    const started = startCompiledServer(image.root, { ...productionEnv, DATABASE_URL: databaseUrl });
    cleanups.push(async () => {
      if (started.child.exitCode === null) started.child.kill('SIGKILL');
    });
    server = started;
    await started.waitFor(/Herald is listening/, 60_000);
    const ready = await fetch(`${publicBaseUrl}/readyz`);
    check(ready.status === 200, `/readyz answered ${ready.status}`);
    const migrations = (await readdir(path.join(image.root, 'prisma', 'migrations'), { withFileTypes: true })).filter((entry) => entry.isDirectory()).length;
    const applied = await queryOne<{ count: string }>(databaseUrl, 'SELECT count(*) FROM "_prisma_migrations" WHERE finished_at IS NOT NULL');
    check(Number(applied.count) === migrations, `${applied.count} of ${migrations} migrations recorded`);
    return started;
  });

  await step('answers a signed webhook through the fake Twilio', async () => {
    anthropic.enqueue({ text: 'Hello from the compiled Herald.' });
    const response = await postWebhook(publicBaseUrl, twilioFake.authToken, 'SM' + 'a'.repeat(32), 'hi there');
    check(response.status === 200, `the webhook answered ${response.status}`);
    const [message] = await twilioFake.waitForMessages(1, 30_000);
    check(message?.to === OWNER && message.body === 'Hello from the compiled Herald.', `unexpected message: ${JSON.stringify(message)}`);
  });

  await step('SIGTERM during a turn: the reply is sent once, then a clean exit within the grace period', async () => {
    let release!: () => void;
    const modelMayAnswer = new Promise<void>((resolve) => (release = resolve));
    anthropic.enqueue(async () => {
      await modelMayAnswer;
      return { text: 'Answered while shutting down.' };
    });
    const before = anthropic.requests.length;
    await postWebhook(publicBaseUrl, twilioFake.authToken, 'SM' + 'b'.repeat(32), 'one more thing');
    await anthropic.waitForRequests(before + 1, 30_000);
    const signalled = performance.now();
    server!.child.kill('SIGTERM');
    await server!.waitFor(/shutting down/, 10_000);
    release();
    const { code, signal } = await server!.exited;
    const took = performance.now() - signalled;
    check(code === 0, `exit ${signal ?? `code ${code}`}, expected 0`);
    check(took < SHUTDOWN_GRACE_MS, `took ${Math.round(took)} ms to exit, past SHUTDOWN_GRACE_MS (${SHUTDOWN_GRACE_MS})`);
    const replies = twilioFake.messages.filter((message) => message.body === 'Answered while shutting down.');
    check(replies.length === 1, `${replies.length} replies to the turn in flight, expected exactly 1`);
    check(server!.output.some((line) => line.includes('stopped cleanly')), 'no "stopped cleanly" line');
  });

  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `smoke: passed in ${((performance.now() - startedAt) / 1000).toFixed(1)} s; image contents: dist/ ${mb(image.sizes.dist)}, production node_modules ${mb(image.sizes.nodeModules)}`,
  );
}

/** Posts an inbound SMS from the owner, signed as Twilio signs it. */
async function postWebhook(baseUrl: string, authToken: string, messageSid: string, body: string): Promise<Response> {
  const form = { MessageSid: messageSid, AccountSid: 'AC' + '0'.repeat(32), From: OWNER, To: HERALD_NUMBER, Body: body, NumMedia: '0' };
  const signature = twilio.getExpectedTwilioSignature(authToken, `${baseUrl}/twilio/messages`, form);
  return fetch(`${baseUrl}/twilio/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: new URLSearchParams(form).toString(),
  });
}

/** A new empty database on SMOKE_DATABASE_URL / TEST_DATABASE_URL's server, or on a throwaway embedded one. */
async function freshDatabase(): Promise<string> {
  let serverUrl = process.env.SMOKE_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const directory = await mkdtemp(path.join(tmpdir(), 'herald-smoke-pg-'));
    const embedded: EmbeddedDatabaseServer = await startEmbeddedPostgres(path.join(directory, 'data'), createSilentLogger(), { persistent: false });
    cleanups.push(async () => {
      await embedded.stop();
      await rm(directory, { recursive: true, force: true });
    });
    serverUrl = embedded.serverUrl;
  }
  const name = `herald_smoke_${process.pid}_${Date.now()}`;
  const url = await ensureDatabase(serverUrl, name);
  const admin = serverUrl;
  cleanups.push(() => queryOne(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {}));
  return url;
}

async function queryOne<Row>(url: string, sql: string): Promise<Row> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as Row;
  } finally {
    await client.end();
  }
}

async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}

main()
  .then(cleanUp)
  .catch(async (error: unknown) => {
    await cleanUp();
    console.error(error instanceof SmokeFailure ? error.message : error);
    process.exit(1);
  });
