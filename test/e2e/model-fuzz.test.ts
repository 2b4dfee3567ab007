import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeXml } from '../../src/orchestrator/prompts/xml.js';
import { B_SECRET, FuzzWorld, type GuardedState, type UserA } from './model-fuzz/fuzz-world.js';
import { programArbitrary, type ModelProgram, type ToolCatalog } from './model-fuzz/model-program.js';
import { PlayerRouter, ProgramPlayer } from './model-fuzz/program-player.js';
import { stringHints } from './model-fuzz/string-hints.js';

/**
 * The model-side fuzz (issue 31, item 7): whatever the model answers, Herald (a) answers the
 * user, exactly once per text, never with an empty text, and never crashes (no error logged,
 * no unhandled rejection, no text left unanswered for SILENCE_MS); (b) never touches another
 * user's data (B's rows, every table with a user id, byte-for-byte) nor shows it to the model;
 * (c) never sends mail, deletes mail, a note, a contact or an event, moves an event, invites
 * anyone, resets the calendar feed or changes a connection without the user's YES (no run
 * ever sends one). Removing a fact, a list item, one reminder, a routine or a page needs no
 * YES by design, so (c) does not count those.
 *
 * Each run is a fast-check program (model-fuzz/model-program.ts) the fake Anthropic server
 * plays: random schema-valid calls of every tool Herald offers (generated from the JSON
 * Schemas the model is shown, read off a warm-up turn) and mutated ones, unknown tools, calls
 * on B's ids and names, plans of up to 50 steps, tool loops that never end (the same call, or
 * varying ones), empty answers, refusals, answers cut short or paused, malformed tool input,
 * huge strings, text Postgres cannot store, and API errors.
 *
 * It drives the real path: the signed webhook (app.inject), the pg-boss turn queue and worker,
 * the turn runner, the orchestrator and its agents over real Postgres, a real Dovecot and the
 * repo's SMTP receiver, and the outbox to the fake Twilio. A run costs 130-400 ms (by the
 * machine's load), mostly Herald's own work (dozens of Prisma queries and commits a turn), not
 * the HTTP hops to the fakes; calling orchestrate() in-process would save little of it and skip
 * where a reply can go missing (the commit, the outbox, the lease). Instead FUZZ_PARALLEL runs (2) go at
 * once, each its own fresh user A seeded with one of everything (the fake routes each request to
 * its program by the user's name in the prompt); B is seeded once and must be byte-for-byte
 * unchanged after every batch.
 *
 * `npm test` runs FUZZ_RUNS (default 200) programs, 30-60 s on two cores; `npm run fuzz`
 * 10,000 (about 30-50 minutes). The seed is printed first; FUZZ_SEED=<seed> replays it (fast-check prints the
 * counterexample, shrunk, and its path). FUZZ_LOG_LEVEL=warn shows Herald's warnings.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const PARALLEL = Math.max(1, Number(process.env.FUZZ_PARALLEL ?? 2));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/** Herald's own log level: errors are a failed run, so nothing quieter than "error". */
const LOG_LEVEL = process.env.FUZZ_LOG_LEVEL ?? 'error';
const ZONE = 'America/New_York';
/** A text still unanswered after this long is silence (fuzz-world.ts `settled`). */
const SILENCE_MS = 120_000;

describe('model fuzz: whatever the model answers', () => {
  let world: FuzzWorld;
  let catalog: ToolCatalog;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

  beforeAll(async () => {
    world = await FuzzWorld.start(LOG_LEVEL);
    catalog = await world.toolCatalog();
    process.on('unhandledRejection', onRejection);
  }, 120_000);
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await world?.close();
  });

  it(`answers every text once, leaves B alone and acts on nothing that needs a YES (${RUNS} programs)`, async () => {
    const { harness } = world;
    const { prisma } = harness.database;
    const baseline = await world.snapshot(world.userB.id);
    const bMail = await world.mailCount('bea');
    const stats = { runs: 0, texts: 0, modelCalls: 0, questions: 0, apologies: 0, roles: { planner: 0, agent: 0, composer: 0, other: 0 } };
    // The batch's users by their name in the prompt; a renamed one (update_profile) is found by id.
    const batch = new Map<string, UserA>();
    const router = new PlayerRouter(async (name) => {
      for (const user of batch.values()) {
        const current = await prisma.user.findUnique({ where: { id: user.id }, select: { name: true } });
        if (current?.name && escapeXml(current.name) === name) return user.name;
      }
      return undefined;
    });

    /** One program, start to finish, for its own user A: property (a) and A's side of (c). */
    async function run(program: ModelProgram): Promise<void> {
      const user = await world.newUserA(program.channel, program.calendar);
      const player = new ProgramPlayer(program, catalog, world.resolver(user.ids));
      batch.set(user.name, user);
      router.register(user.name, player);
      try {
        const before = await world.guardedState(user.id);
        for (const [index, words] of program.messages.entries()) {
          const response = await harness.inbound({ from: user.address, body: typeof words === 'string' ? words : words.text() });
          expect(response.statusCode, 'the webhook').toBe(200);
          await world.settled(user.id, user.phone, SILENCE_MS);
          // (a) exactly one reply per text, with words in it, sent.
          const replies = await prisma.message.findMany({ where: { userId: user.id, role: 'assistant' }, orderBy: { createdAt: 'asc' }, select: { kind: true, content: true } });
          expect(replies.map((reply) => reply.kind), `replies after text ${index + 1}`).toEqual(Array.from({ length: index + 1 }, () => 'chat'));
          expect(replies.at(-1)!.content.trim(), 'the reply has words').not.toBe('');
        }
        const inbound = await prisma.message.findMany({ where: { userId: user.id, role: 'user' }, select: { inboundStatus: true } });
        expect(inbound.map((message) => message.inboundStatus), 'texts answered').toEqual(program.messages.map(() => 'handled'));
        const sent = harness.twilio.messages.filter((message) => message.to === user.address);
        expect(sent.length, 'Twilio accepted every reply').toBeGreaterThanOrEqual(program.messages.length);
        // (c) on A's own rows: nothing only a YES may delete, move, share or disconnect.
        expectGuarded(before, await world.guardedState(user.id));
        expect(await prisma.calendarEvent.count({ where: { userId: user.id, ics: { contains: 'ATTENDEE' } } }), 'events with invitations').toBe(0);

        stats.texts += program.messages.length;
        stats.questions += await prisma.pendingQuestion.count({ where: { userId: user.id } });
        stats.apologies += await prisma.turn.count({ where: { userId: user.id, status: 'failed' } });
        for (const role of ['planner', 'agent', 'composer', 'other'] as const) stats.roles[role] += player.played[role];
      } catch (error) {
        throw new Error(`${describeRun(program, user)}\n${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }

    process.stdout.write(`model fuzz: ${RUNS} runs, ${PARALLEL} at a time, seed ${SEED} (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_PARALLEL=${PARALLEL} npx vitest run test/e2e/model-fuzz.test.ts)\n`);
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.array(programArbitrary(catalog, stringHints(ZONE)), { minLength: PARALLEL, maxLength: PARALLEL }), async (programs) => {
        stats.runs += programs.length;
        harness.anthropic.reset();
        harness.anthropic.setFallback(router.answer);
        const logsBefore = harness.logs.lines.length;
        const rejectionsBefore = rejections.length;
        const twilioBefore = harness.twilio.messages.length;
        const smtpBefore = world.smtp.received.length;
        // Mail is counted over IMAP only when a program can file any (every A shares one mailbox).
        const filesMail = JSON.stringify(programs).includes('file_emails');
        const mailBefore = filesMail ? await world.mailCount('ana') : 0;
        try {
          const outcomes = await Promise.allSettled(programs.map(run));
          const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
          if (failed) throw failed.reason;
          // (a) no crash: nothing logged as an error, no unhandled rejection.
          expect(harness.logs.lines.slice(logsBefore).filter((line) => line.level >= 50).map((line) => `${line.msg} ${JSON.stringify(line.error ?? '')}`), 'errors logged').toEqual([]);
          expect(rejections.slice(rejectionsBefore).map(String), 'unhandled rejections').toEqual([]);
          // (b) B's rows untouched; nothing of B's reached the model or a text.
          expect(await world.snapshot(world.userB.id), "B's rows").toEqual(baseline);
          const leaked = harness.anthropic.requests.filter((request) => JSON.stringify(request.body).includes(B_SECRET)).map((request) => request.number);
          expect(leaked, "requests that showed the model B's data").toEqual([]);
          // (c) no mail sent or deleted, no text to anyone but the users themselves.
          expect(world.smtp.received.length - smtpBefore, 'mail sent').toBe(0);
          if (filesMail) expect(await world.mailCount('ana'), 'mail deleted (needs YES)').toBe(mailBefore);
          const strangers = harness.twilio.messages.slice(twilioBefore).filter((message) => !world.phones.has(message.to.replace(/^whatsapp:/, '')) || message.body?.includes(B_SECRET));
          expect(strangers.map((message) => message.to), 'texts to anyone else, or with B data').toEqual([]);
          stats.modelCalls += harness.anthropic.requests.length;
        } finally {
          for (const user of batch.values()) world.dropUser(user.id);
          batch.clear();
          router.clear();
        }
      }),
      { numRuns: Math.ceil(RUNS / PARALLEL), seed: SEED },
    );
    const seconds = (performance.now() - started) / 1000;
    expect(await world.mailCount('bea'), "B's mailbox").toBe(bMail);
    process.stdout.write(
      `model fuzz: ${stats.runs} runs in ${seconds.toFixed(1)} s (${((seconds / stats.runs) * 1000).toFixed(0)} ms a run); ${stats.texts} texts answered; ` +
        `${stats.modelCalls} model calls (planner ${stats.roles.planner}, agents ${stats.roles.agent}, composer ${stats.roles.composer}); ` +
        `${stats.questions} questions asked; ${stats.apologies} turns failed and apologised\n`,
    );
    // The generator must reach the agents and their questions, or the properties prove little.
    expect(stats.roles.agent).toBeGreaterThan(RUNS);
    expect(stats.questions).toBeGreaterThan(RUNS / 50);
  }, 120_000 + RUNS * 5_000);
});

/** Property (c) on A's own rows: what only a YES deletes or changes is as it was. */
function expectGuarded(before: GuardedState, after: GuardedState): void {
  expect(after.connections, 'connections (disconnecting needs YES)').toBe(before.connections);
  expect(after.calendarSettings, 'calendar settings (the feed reset and the calendar connection need YES)').toBe(before.calendarSettings);
  expect(before.notes.filter((id) => !after.notes.includes(id)), 'notes deleted (needs YES)').toEqual([]);
  expect(before.contacts.filter((id) => !after.contacts.includes(id)), 'contacts deleted (needs YES)').toEqual([]);
  expect(before.events.filter((event) => !after.events.includes(event)), 'events deleted or moved (needs YES)').toEqual([]);
}

/** The run in a line, for the failure message (fast-check prints the whole programs after it). */
function describeRun(program: ModelProgram, user: UserA): string {
  const texts = program.messages.map((words) => (typeof words === 'string' ? words : words.text()).slice(0, 80));
  return `run for ${user.name} ${user.address} (calendar ${program.calendar}): texts ${JSON.stringify(texts)}, ${program.steps.length} step scripts, tail ${program.tail}`;
}
