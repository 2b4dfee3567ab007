import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseVcards } from '../../src/contacts/vcard.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { FakeEmbeddingsServer } from '../fakes/fake-embeddings-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { CheckedScript, lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';

/**
 * The second brain and contacts through the real webhook, real Postgres and the fake
 * Anthropic, Twilio and embeddings servers: notes saved from a text with the message they
 * came from and embedded (the cost in the turn), found by meaning weeks later, refused past
 * their limits, deleted after YES; contacts saved, two Danas asked about by number; MY DATA
 * lists and downloads them, DELETE MY DATA erases them with their search entries.
 */
describe('notes, search and contacts end to end', () => {
  let harness: HeraldHarness;
  let embeddings: FakeEmbeddingsServer;
  const script = new CheckedScript();
  const checked = script.checked.bind(script);
  let phone = 0;
  let user = '';

  beforeAll(async () => {
    embeddings = await FakeEmbeddingsServer.start();
    harness = await HeraldHarness.start({
      env: { EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_API_KEY: embeddings.apiKey, EMBEDDINGS_MODEL: embeddings.model, EMBEDDINGS_PRICE_PER_MTOK: '0.5', NOTES_MAX_PER_USER: '10000' },
    });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
    embeddings.reset();
    phone += 1;
    user = `+1415557${String(phone).padStart(4, '0')}`;
  });
  afterAll(async () => {
    await harness.close();
    await embeddings.close();
  });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(user, body);
    script.rethrow();
    return reply;
  }
  const userId = async () => (await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: user } })).id;
  const complete = (reply: string, extra: Record<string, unknown> = {}): ScriptedAnthropicResponse => ({ toolCalls: [{ name: 'complete_step', input: { summary: reply, reply, ...extra } }] });

  it('saves "note: …" with the message it came from, embeds it in that turn and counts the cost', async () => {
    harness.anthropic.enqueue(
      singleStepPlan('memory-agent', "Save a note: the wifi at mom's is Lemon-Tree-42"),
      { toolCalls: [{ name: 'save_note', input: { title: "Wifi at mom's", body: "The wifi at mom's is Lemon-Tree-42", tags: ['Wifi', '#home'] } }] },
      checked((request) => {
        const [result] = toolResults(request);
        expect(JSON.parse(result!.content)).toMatchObject({ effect: 'created', note: { title: "Wifi at mom's", tags: ['wifi', 'home'] } });
        return complete("Saved: wifi at mom's.", { created: [{ description: "Wifi at mom's" }] });
      }),
    );
    expect(await send("note: the wifi at mom's is Lemon-Tree-42")).toBe("Saved: wifi at mom's.");
    const id = await userId();
    const [note] = await harness.database.prisma.note.findMany({ where: { userId: id }, include: { sourceMessage: true } });
    expect(note).toMatchObject({ title: "Wifi at mom's", language: 'en', sourceMessage: { content: "note: the wifi at mom's is Lemon-Tree-42", role: 'user' } });
    // Embedded in the same turn, only the note's own words, and charged to that turn.
    expect(embeddings.embeddedTexts()).toEqual(["Wifi at mom's\nwifi home\nThe wifi at mom's is Lemon-Tree-42"]);
    const turn = await harness.database.prisma.turn.findFirstOrThrow({ where: { userId: id }, orderBy: { startedAt: 'desc' } });
    const lines = turn.models as Array<{ model: string; costUsd: number }>;
    const embeddingLine = lines.find((line) => line.model === `embeddings:${embeddings.model}`);
    expect(embeddingLine?.costUsd).toBeGreaterThan(0);
    expect(Number(turn.costUsd)).toBeCloseTo(lines.reduce((sum, line) => sum + line.costUsd, 0), 5);
  });

  it('answers "what was the restaurant Dana recommended?" from a note written weeks ago, by meaning', async () => {
    await send('hi').catch(() => undefined);
    const id = await userId();
    await harness.herald.brain.notes.save(id, { body: 'Abu Hassan in Jaffa: Dana raved about it, get the masabacha' });
    await harness.herald.brain.notes.save(id, { body: 'Garage: tyres rotated, next oil change in March' });
    harness.anthropic.reset();
    harness.anthropic.enqueue(
      singleStepPlan('memory-agent', 'Find the restaurant Dana recommended'),
      checked((request) => {
        expect(request.toolNames()).toEqual(expect.arrayContaining(['search_memory', 'save_note', 'get_note', 'list_notes', 'update_note', 'delete_note']));
        return { toolCalls: [{ name: 'search_memory', input: { queries: ['which eatery did Dana suggest', 'Dana restaurant tip'] } }] };
      }),
      checked((request) => {
        const { results } = JSON.parse(toolResults(request)[0]!.content) as { results: Array<{ kind: string; snippet?: string }> };
        expect(results[0]).toMatchObject({ kind: 'note', snippet: 'Abu Hassan in Jaffa: Dana raved about it, get the masabacha' });
        return complete('Abu Hassan in Jaffa (get the masabacha).');
      }),
    );
    expect(await send('What was the restaurant Dana recommended?')).toBe('Abu Hassan in Jaffa (get the masabacha).');
  });

  it('refuses a 20,001-character note with the limit, saving nothing', async () => {
    harness.anthropic.enqueue(
      singleStepPlan('memory-agent', 'Save the pasted article as a note'),
      { toolCalls: [{ name: 'save_note', input: { title: 'Article', body: 'a'.repeat(20_001) } }] },
      checked((request) => {
        expect(toolResults(request)[0]).toEqual({ isError: true, content: 'The note is 20,001 characters; a note holds at most 20,000. Nothing was saved: ask the user to shorten it or split it into parts.' });
        return complete('That is 20,001 characters; a note holds at most 20,000. Could you split it?', { needsClarification: true, question: 'That is 20,001 characters; a note holds at most 20,000. Could you split it?' });
      }),
    );
    expect(await send('save this article')).toBe('That is 20,001 characters; a note holds at most 20,000. Could you split it?');
    expect(await harness.database.prisma.note.count({ where: { userId: await userId() } })).toBe(0);
  });

  it('the 10,001st note gets a clear answer and is not saved', async () => {
    await send('hi').catch(() => undefined);
    const id = await userId();
    await harness.database.pool.query(
      `INSERT INTO "Note" ("id", "userId", "title", "body", "tags", "language", "updatedAt")
       SELECT gen_random_uuid(), $1::uuid, 'Note ' || n, 'Body of note ' || n, '{}', 'en', now() FROM generate_series(1, 10000) AS n`,
      [id],
    );
    harness.anthropic.reset();
    harness.anthropic.enqueue(
      singleStepPlan('memory-agent', 'Save a note: buy stamps'),
      { toolCalls: [{ name: 'save_note', input: { body: 'buy stamps' } }] },
      checked((request) => {
        expect(toolResults(request)[0]).toEqual({ isError: true, content: 'The user already has 10,000 notes, the most Herald keeps. Nothing was saved: they can delete notes they no longer need first.' });
        return complete('You have 10,000 notes, the most I keep. Delete some first?', { needsClarification: true, question: 'You have 10,000 notes, the most I keep. Delete some first?' });
      }),
    );
    expect(await send('note: buy stamps')).toBe('You have 10,000 notes, the most I keep. Delete some first?');
    expect(await harness.database.prisma.note.count({ where: { userId: id } })).toBe(10_000);
  });

  it('deletes a note only after YES', async () => {
    await send('hi').catch(() => undefined);
    const id = await userId();
    const saved = await harness.herald.brain.notes.save(id, { title: 'Old idea', body: 'Loyalty stamps for the shop' });
    if (!saved.ok) throw new Error(saved.error);
    harness.anthropic.reset();
    harness.anthropic.enqueue(
      singleStepPlan('memory-agent', `Delete the note ${saved.value.note.id}`),
      { toolCalls: [{ name: 'delete_note', input: { noteId: saved.value.note.id } }] },
      complete('Delete the note "Old idea"?'),
    );
    const question = await send('delete my old idea note');
    expect(question).toContain('Delete the note "Old idea"?');
    expect(await harness.database.prisma.note.count({ where: { userId: id } })).toBe(1);
    expect(await send('YES')).toBe('Deleted the note "Old idea".');
    expect(await harness.database.prisma.note.count({ where: { userId: id } })).toBe(0);
    expect((await harness.database.pool.query('SELECT 1 FROM herald_search.document WHERE user_id = $1', [id])).rowCount).toBe(0);
  });

  it('saves a contact from the user\'s words, and two Danas are asked about by number', async () => {
    harness.anthropic.enqueue(
      singleStepPlan('contacts-agent', "Save Dana Katz's email dana@katz.example"),
      { toolCalls: [{ name: 'find_contacts', input: { query: 'Dana Katz' } }] },
      { toolCalls: [{ name: 'save_contact', input: { name: 'Dana Katz', emails: ['Dana@Katz.example'], phones: ['(415) 555-0199'] } }] },
      complete("Saved Dana Katz's email.", { created: [{ description: 'Dana Katz' }] }),
    );
    expect(await send("Dana Katz's email is dana@katz.example")).toBe("Saved Dana Katz's email.");
    const id = await userId();
    expect(await harness.database.prisma.contact.findMany({ where: { userId: id }, select: { name: true, emails: true, phones: true, source: true } })).toEqual([
      { name: 'Dana Katz', emails: ['dana@katz.example'], phones: ['+14155550199'], source: 'user' },
    ]);
    await harness.herald.contacts.contacts.create(id, { name: 'Dana Levi', emails: ['dana.levi@example.com'], relationship: 'colleague' });

    const question = 'Which Dana?\n1) Dana Katz dana@katz.example\n2) Dana Levi (colleague) dana.levi@example.com';
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Email Dana the photos link'),
      checked((request) => {
        expect(request.toolNames()).toContain('find_contacts');
        return { toolCalls: [{ name: 'find_contacts', input: { query: 'Dana' } }] };
      }),
      checked((request) => {
        const found = JSON.parse(toolResults(request)[0]!.content) as { choices: string; note: string };
        expect(found.choices).toBe('1) Dana Katz dana@katz.example\n2) Dana Levi (colleague) dana.levi@example.com');
        expect(found.note).toMatch(/^Several people match/);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Two Danas', needsClarification: true, question: `Which Dana?\n${found.choices}` } }] };
      }),
    );
    expect(await send('email Dana the photos link')).toBe(question);
  });

  it('MY DATA lists notes and contacts with downloads; DELETE MY DATA erases them and their search entries', async () => {
    await send('hi').catch(() => undefined);
    const id = await userId();
    await harness.herald.brain.notes.save(id, { title: 'Recipe', body: 'Lentil soup: lentils, cumin, lemon', tags: ['recipe'] });
    await harness.herald.contacts.contacts.create(id, { name: 'Mom', phones: ['+972541234567'], birthday: '--05-14', relationship: 'mother' });
    const reply = await send('MY DATA');
    const link = /https?:\/\/\S+\/p\/[A-Za-z0-9_-]+/.exec(reply)?.[0];
    expect(link).toBeDefined();
    const page = await harness.herald.app.inject({ method: 'GET', url: new URL(link!).pathname });
    expect(page.body).toContain('Notes (1)');
    expect(page.body).toContain('Recipe (recipe)');
    expect(page.body).toContain('Contacts (1)');
    const downloads = [...page.body.matchAll(/href="([^"]+\/(notes\.json|contacts\.vcf|contacts\.json))"/g)].map((match) => new URL(match[1]!.replaceAll('&amp;', '&')).pathname);
    expect(downloads.map((path) => path.split('/').at(-1))).toEqual(['notes.json', 'contacts.vcf', 'contacts.json']);
    const notesFile = await harness.herald.app.inject({ method: 'GET', url: downloads[0]! });
    expect(notesFile.statusCode, notesFile.body.slice(0, 300) + downloads[0]).toBe(200);
    expect(notesFile.headers['content-disposition']).toBe('attachment; filename="herald-notes.json"');
    expect(JSON.parse(notesFile.body).notes).toEqual([expect.objectContaining({ title: 'Recipe', body: 'Lentil soup: lentils, cumin, lemon', tags: ['recipe'] })]);
    const vcard = await harness.herald.app.inject({ method: 'GET', url: downloads[1]! });
    expect(vcard.headers['content-type']).toBe('text/vcard; charset=utf-8');
    expect(parseVcards(vcard.body)).toEqual({ contacts: [expect.objectContaining({ name: 'Mom', phones: ['+972541234567'], birthday: '--05-14', relationship: 'mother' })], problems: [], refusals: [], refused: 0, unread: 0, cards: 1 });
    // A link tampered with is refused like an expired one.
    const tampered = downloads[0]!.replace(/\/p\/([^/]+)\./, (_match, payload: string) => `/p/${payload.slice(0, -2)}AA.`);
    expect((await harness.herald.app.inject({ method: 'GET', url: tampered })).statusCode).toBe(404);

    expect(await send('DELETE MY DATA')).toMatch(/YES/);
    await send('YES');
    expect(await harness.database.prisma.note.count({ where: { userId: id } })).toBe(0);
    expect(await harness.database.prisma.contact.count({ where: { userId: id } })).toBe(0);
    expect((await harness.database.pool.query('SELECT 1 FROM herald_search.document WHERE user_id = $1', [id])).rowCount).toBe(0);
    expect((await harness.herald.app.inject({ method: 'GET', url: downloads[0]! })).statusCode).toBe(404);
  });
});
