import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MessageRole } from '../../src/generated/prisma/client.js';
import { baseInstructions } from '../../src/orchestrator/prompts/base-instructions.js';
import { EARLIER_CONVERSATION_MARKER } from '../../src/orchestrator/prompts/conversation-messages.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { RecordedAnthropicRequest } from '../fakes/fake-anthropic-server.js';
import type { SentTwilioMessage } from '../fakes/fake-twilio-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Not the default (which refuses sampling parameters): a model that takes temperature 0 gets it.
const PLANNER_MODEL = 'claude-sonnet-4-6';

/** What the model was shown, message by message. */
function shownMessages(request: RecordedAnthropicRequest): Array<{ role: string; content: unknown }> {
  return (request.body.messages ?? []).map((message) => ({ role: message.role, content: message.content }));
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

describe('context assembly: what the model is shown', () => {
  // Just before the US switches to daylight saving time (02:00 local on 2026-03-08 = 07:00 UTC).
  const clock = new ManualClock('2026-03-08T06:30:00Z');
  let harness: HeraldHarness;

  beforeAll(async () => {
    // One planner for every message here (no light planner for messages that name no agent).
    harness = await HeraldHarness.start({ clock, env: { MODEL_PLANNER: PLANNER_MODEL, MODEL_PLANNER_LIGHT: 'none' } });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Sends a text, waits for the reply, and returns the one model request its turn made. */
  async function ask(phone: string, body: string, answer: string): Promise<RecordedAnthropicRequest> {
    const before = harness.anthropic.requests.length;
    const repliesBefore = harness.twilio.messages.filter((message) => message.to === phone).length;
    harness.anthropic.enqueue({ text: answer });
    await harness.inbound({ from: phone, body });
    const replies = await harness.repliesTo(phone, repliesBefore + 1);
    expect(replies.at(-1)?.body).toBe(answer);
    expect(harness.anthropic.requests).toHaveLength(before + 1);
    return harness.anthropic.requests[before]!;
  }

  async function createUser(phone: string, name: string, timezone = 'America/New_York') {
    return harness.database.prisma.user.create({ data: { phone, name, timezone, createdAt: clock.now() } });
  }

  /** Stores an exchange as Herald would have: handled inbound and assistant messages. */
  async function seedMessages(userId: string, messages: Array<{ role: MessageRole; content: string; createdAt: Date }>) {
    await harness.database.prisma.message.createMany({
      data: messages.map((message) => ({
        userId,
        role: message.role,
        content: message.content,
        channel: 'sms' as const,
        tokenCount: Math.ceil(message.content.length / 4),
        inboundStatus: message.role === 'user' ? ('handled' as const) : null,
        createdAt: message.createdAt,
      })),
    });
  }

  it('gives the planner its model, temperature 0, a cached stable block, and the per-turn block: time, user, facts', async () => {
    clock.set('2026-03-08T06:30:00Z');
    const marisol = await createUser('+12125550123', 'Marisol');
    await harness.database.prisma.fact.createMany({
      data: [
        { userId: marisol.id, category: 'preferences', content: 'allergic to <peanuts> & shellfish' },
        { userId: marisol.id, category: 'family', content: 'sister Inês lives in Porto' },
      ],
    });
    const other = await createUser('+12125550999', 'Oren');
    await harness.database.prisma.fact.create({ data: { userId: other.id, category: 'preferences', content: 'OTHER-USER-SECRET-FACT' } });
    await seedMessages(other.id, [
      { role: 'user', content: 'OTHER-USER-SECRET-MESSAGE', createdAt: new Date(clock.now().getTime() - 10 * MINUTE) },
      { role: 'assistant', content: 'OTHER-USER-SECRET-REPLY', createdAt: new Date(clock.now().getTime() - 9 * MINUTE) },
    ]);

    const request = await ask('+12125550123', 'what should I cook tonight?', 'Try a chickpea curry.');

    expect(request.body.model).toBe(PLANNER_MODEL);
    expect(request.body.temperature).toBe(0);
    expect(request.body.max_tokens).toBeGreaterThanOrEqual(harness.config.limits.replyMaxTokens);

    // Prompt caching: the stable first block is marked, the per-user block is not.
    const system = request.body.system;
    expect(Array.isArray(system)).toBe(true);
    const [stable, ...others] = system as Array<{ type: string; text: string; cache_control?: unknown }>;
    // Cached: for five minutes or an hour, whichever the prefix's measured pace makes cheaper (src/model/prompt-cache-policy.ts).
    expect(stable).toEqual({ type: 'text', text: expect.stringContaining(baseInstructions), cache_control: expect.objectContaining({ type: 'ephemeral' }) });
    expect(stable!.text).not.toContain('Marisol');
    expect(stable!.text).not.toContain('2026-03-08');
    expect(stable!.text).not.toContain('March 8');
    expect(stable!.text).not.toContain('<current_time>');
    expect(stable!.text).not.toContain('peanuts');
    // Everything per user and per minute comes after the cached prefix, unmarked.
    expect(others.length).toBeGreaterThan(0);
    for (const block of others) expect(block).not.toHaveProperty('cache_control');
    const perTurn = { text: others.map((block) => block.text).join('\n') };

    // Current time in the user's zone, with offset and weekday: 01:30 EST, Sunday.
    expect(perTurn.text).toContain(
      '<current_time>Sunday, March 8, 2026 at 1:30 AM (2026-03-08T01:30:00-05:00), weekday Sunday (0), time zone America/New_York, UTC-05:00</current_time>',
    );
    expect(perTurn.text).toContain('<name>Marisol</name>');
    expect(perTurn.text).toContain('<timezone>America/New_York</timezone>');
    expect(perTurn.text).toMatch(/<fact (id="[^"]+" )?category="preferences">allergic to &lt;peanuts&gt; &amp; shellfish<\/fact>/);
    expect(perTurn.text).toMatch(/<fact (id="[^"]+" )?category="family">sister Inês lives in Porto<\/fact>/);
    expect(perTurn.text).not.toContain('<peanuts>');
    expect(perTurn.text).not.toContain('<onboarding>');

    expect(shownMessages(request)).toEqual([{ role: 'user', content: 'what should I cook tonight?' }]);
    const everything = request.allText();
    for (const secret of ['OTHER-USER-SECRET-FACT', 'OTHER-USER-SECRET-MESSAGE', 'OTHER-USER-SECRET-REPLY', 'Oren']) {
      expect(everything).not.toContain(secret);
    }

    // An hour later the clocks have gone forward: 03:30 EDT, still Sunday, and the first
    // exchange is now history, in order, with the new message once, last.
    clock.set('2026-03-08T07:30:00Z');
    const later = await ask('+12125550123', 'and for dessert?', 'Poached pears.');
    expect(later.systemText()).toContain('Sunday, March 8, 2026 at 3:30 AM (2026-03-08T03:30:00-04:00), weekday Sunday (0), time zone America/New_York, UTC-04:00');
    expect(later.systemText()).not.toContain('-05:00');
    expect(shownMessages(later)).toEqual([
      { role: 'user', content: 'what should I cook tonight?' },
      { role: 'assistant', content: 'Try a chickpea curry.' },
      { role: 'user', content: 'and for dessert?' },
    ]);
    expect(occurrences(later.allText(), 'and for dessert?')).toBe(1);
    expect(later.allText()).not.toContain('OTHER-USER-SECRET');
    // The cached block is byte-identical across turns (and users), so the cache can hit (its
    // marker's lifetime may differ: the prefix's pace chooses it; the cached content is the text).
    const text = (block: unknown) => (block as { text: string }).text;
    expect(text((later.body.system as unknown[])[0])).toBe(text(stable));
  });

  it('keeps only the newest 20 messages, oldest first, alternating user and assistant', async () => {
    clock.set('2026-03-10T12:00:00Z');
    const eli = await createUser('+12125550124', 'Eli');
    const now = clock.now().getTime();
    const seeded = Array.from({ length: 30 }, (_, index) => ({
      role: (index % 2 === 0 ? 'user' : 'assistant') as MessageRole,
      content: `history message ${String(index).padStart(2, '0')}`,
      createdAt: new Date(now - (30 - index) * MINUTE),
    }));
    await seedMessages(eli.id, seeded);

    const request = await ask('+12125550124', 'the latest question', 'An answer.');

    const shown = shownMessages(request);
    expect(shown).toHaveLength(21);
    expect(shown.slice(0, 20)).toEqual(seeded.slice(10).map(({ role, content }) => ({ role, content })));
    expect(shown.at(-1)).toEqual({ role: 'user', content: 'the latest question' });
    expect(request.allText()).not.toContain('history message 09');
    expect(occurrences(request.allText(), 'the latest question')).toBe(1);
  });

  it('leaves out messages older than 24 hours', async () => {
    clock.set('2026-03-10T13:00:00Z');
    const fay = await createUser('+12125550125', 'Fay');
    const now = clock.now().getTime();
    await seedMessages(fay.id, [
      { role: 'user', content: 'ANCIENT question', createdAt: new Date(now - 26 * HOUR) },
      { role: 'assistant', content: 'ANCIENT answer', createdAt: new Date(now - 24 * HOUR - MINUTE) },
      { role: 'user', content: 'recent question', createdAt: new Date(now - 23 * HOUR) },
      { role: 'assistant', content: 'recent answer', createdAt: new Date(now - 23 * HOUR + MINUTE) },
    ]);

    const request = await ask('+12125550125', 'what did I ask?', 'You asked a recent question.');

    expect(shownMessages(request)).toEqual([
      { role: 'user', content: 'recent question' },
      { role: 'assistant', content: 'recent answer' },
      { role: 'user', content: 'what did I ask?' },
    ]);
    expect(request.allText()).not.toContain('ANCIENT');
  });

  it('drops the oldest messages to stay within 4000 tokens (about 4 characters each)', async () => {
    clock.set('2026-03-11T12:00:00Z');
    const gil = await createUser('+12125550126', 'Gil');
    const now = clock.now().getTime();
    // Eight messages of 600 tokens: the newest six (3600) fit, a seventh (4200) would not.
    const seeded = Array.from({ length: 8 }, (_, index) => {
      const label = `long message ${index} `;
      return {
        role: (index % 2 === 0 ? 'user' : 'assistant') as MessageRole,
        content: label + 'x'.repeat(2400 - label.length),
        createdAt: new Date(now - (8 - index) * MINUTE),
      };
    });
    await seedMessages(gil.id, seeded);
    expect(harness.config.history.maxTokens).toBe(4000);

    const request = await ask('+12125550126', 'short question', 'Short answer.');

    const shown = shownMessages(request);
    expect(shown.slice(0, -1)).toEqual(seeded.slice(2).map(({ role, content }) => ({ role, content })));
    expect(shown.at(-1)).toEqual({ role: 'user', content: 'short question' });
    expect(request.allText()).not.toContain('long message 0 ');
    expect(request.allText()).not.toContain('long message 1 ');
  });

  it('opens a window that starts with Herald speaking with a user marker', async () => {
    clock.set('2026-03-12T12:00:00Z');
    const hila = await createUser('+12125550127', 'Hila');
    await seedMessages(hila.id, [{ role: 'assistant', content: 'Reminder: water the plants', createdAt: new Date(clock.now().getTime() - HOUR) }]);

    const request = await ask('+12125550127', 'done!', 'Great.');

    expect(shownMessages(request)).toEqual([
      { role: 'user', content: EARLIER_CONVERSATION_MARKER },
      { role: 'assistant', content: 'Reminder: water the plants' },
      { role: 'user', content: 'done!' },
    ]);
  });
});
