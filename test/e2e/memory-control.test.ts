import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { say } from '../../src/texts/texts.js';
import { textingUser } from '../helpers/texting-user.js';

/**
 * The user in control of what Herald learned (issue 21 item 6), through the webhook and
 * without a model: "what do you know about me" marks learned facts, "forget …" removes,
 * MY DATA shows each learned fact with the sentence it came from, and erasing that message
 * (or everything) erases the fact.
 */

const DELAY_MS = 60 * 60 * 1000;

describe('what Herald learned, in the user’s hands', () => {
  const clock = new ManualClock(new Date());
  const chat = textingUser({ clock, startAt: new Date().toISOString(), firstPhone: 7200, harness: { env: { FACT_LEARNING: 'on', FACT_LEARNING_DELAY_MS: String(DELAY_MS) } } });
  const prisma = () => chat.harness.database.prisma;
  const facts = () => prisma().fact.findMany({ where: { userId: chat.userId }, orderBy: { createdAt: 'asc' } });

  /** The user says `text` (answered by the planner), and a pass learns `learned` from it. */
  async function learnFrom(text: string, learned: Array<{ category: string; subject: string; content: string }>) {
    chat.harness.anthropic.enqueue({ text: 'Noted!' });
    await chat.send(text);
    clock.advance(DELAY_MS + 1_000);
    chat.harness.anthropic.enqueue({ toolCalls: [{ name: 'save_learned_facts', input: { facts: learned.map((fact) => ({ ...fact, message: 1 })) } }] });
    expect(await chat.harness.herald.learning.learn(chat.userId)).toMatchObject({ kind: 'learned', stored: learned.length });
    clock.advance(1_000);
  }
  async function explicit(category: string, subject: string, content: string) {
    await prisma().fact.create({ data: { userId: chat.userId, category, subject, content, createdAt: clock.now(), updatedAt: clock.now() } });
  }
  /** A message answered without any model call. */
  async function modelFree(text: string): Promise<string> {
    const before = chat.harness.anthropic.requests.length;
    const reply = await chat.send(text);
    expect(chat.harness.anthropic.requests.length).toBe(before);
    return reply;
  }

  it('"what do you know about me" lists every fact, the learned ones marked', async () => {
    expect(await modelFree('What do you know about me?')).toBe(say('en', 'memoryEmpty'));
    await explicit('personal', 'name of dog', 'Has a dog called Rex');
    await learnFrom("I'm vegetarian, by the way", [{ category: 'preferences', subject: 'diet', content: 'Is vegetarian' }]);
    const reply = await modelFree('what do you know about me');
    expect(reply).toBe([say('en', 'memoryIntro'), '- Has a dog called Rex', `- Is vegetarian ${say('en', 'memoryLearned')}`, say('en', 'memoryOutro')].join('\n'));
  });

  it('"forget where I work" removes the work facts and nothing else; a "forget" that matches no fact goes to the planner', async () => {
    await explicit('personal', 'home city', 'Lives in Boston');
    await learnFrom('Long day at Acme again, I manage the design team there', [
      { category: 'work', subject: 'employer', content: 'Works at Acme' },
      { category: 'work', subject: 'role', content: 'Manages the design team' },
    ]);
    expect(await modelFree('Forget where I work')).toBe(say('en', 'memoryForgot', { facts: 'Works at Acme; Manages the design team' }));
    expect((await facts()).map((fact) => fact.content)).toEqual(['Lives in Boston']);

    chat.harness.anthropic.enqueue({ text: 'Which reminder?' });
    expect(await chat.send('forget the dentist reminder')).toBe('Which reminder?');
  });

  it('"forget that" removes the fact just learned, and nothing said so far is learned later', async () => {
    await learnFrom('My sister Dana is moving to Lisbon', [{ category: 'relationships', subject: 'sister', content: 'Sister Dana is moving to Lisbon' }]);
    chat.harness.anthropic.enqueue({ text: 'Noted!' });
    await chat.send('And my brother is called Omer');
    expect(await modelFree('forget that')).toBe(say('en', 'memoryForgot', { facts: 'Sister Dana is moving to Lisbon' }));
    expect(await facts()).toEqual([]);
    clock.advance(DELAY_MS + 1_000);
    const before = chat.harness.anthropic.requests.length;
    expect((await chat.harness.herald.learning.learn(chat.userId)).kind).toBe('nothing_new');
    expect(chat.harness.anthropic.requests.length).toBe(before);
  });

  it('MY DATA shows a learned fact with the sentence it came from', async () => {
    await explicit('personal', 'dog', 'Has a dog called Rex');
    await learnFrom('We always spend August in Crete', [{ category: 'routine', subject: 'summer', content: 'Spends August in Crete' }]);
    const reply = await modelFree('MY DATA');
    const link = /https:\/\/herald\.test\/p\/\S+/.exec(reply)?.[0];
    const page = await chat.harness.herald.app.inject({ method: 'GET', url: new URL(link!).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Has a dog called Rex (personal)');
    expect(page.body).toContain('Spends August in Crete (routine; learned from your message “We always spend August in Crete”)');
  });

  it('a learned fact goes when the message it came from is erased, and DELETE MY DATA erases them all', async () => {
    await learnFrom('I play the cello in a quartet', [{ category: 'personal', subject: 'music', content: 'Plays the cello in a quartet' }]);
    await learnFrom('Our cat is called Miso', [{ category: 'personal', subject: 'cat', content: 'Has a cat called Miso' }]);
    const source = await prisma().message.findFirstOrThrow({ where: { userId: chat.userId, content: 'I play the cello in a quartet' } });
    await prisma().message.delete({ where: { id: source.id } });
    expect((await facts()).map((fact) => fact.content)).toEqual(['Has a cat called Miso']);

    await modelFree('DELETE MY DATA');
    await modelFree('YES');
    expect(await prisma().fact.count({ where: { userId: chat.userId } })).toBe(0);
    expect(await prisma().user.count({ where: { id: chat.userId } })).toBe(0);
  });
});
