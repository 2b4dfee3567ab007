import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isGsm7, smsSegments } from '../../src/channels/sms-encoding.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * Long answers arrive whole (issue 22): a reply longer than one message may carry on its
 * channel (SMS_MAX_SEGMENTS segments; WhatsApp's 1,600 characters) is stored as a page and
 * the text is its lead, cut at a sentence boundary, then the link. Nothing is lost: the page
 * holds every sentence, paragraphs and lists kept; a reply exactly at the limit goes whole.
 */

const LINK = /https:\/\/herald\.test\/p\/([A-Za-z0-9_-]{43})/;

/** `count` numbered sentences, each ~40 characters, in paragraphs of five, with a list in the middle. */
function longAnswer(count: number, sentence = (index: number) => `Sentence number ${index} tells you one more thing.`): string {
  const paragraphs: string[] = [];
  for (let start = 1; start <= count; start += 5) {
    paragraphs.push(Array.from({ length: Math.min(5, count - start + 1) }, (_, offset) => sentence(start + offset)).join(' '));
  }
  paragraphs.splice(2, 0, '- first listed point\n- second listed point\n- third listed point');
  return paragraphs.join('\n\n');
}

describe('long answers', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(() => {
    counter += 1;
    phone = `+1415555${String(7700 + counter)}`;
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Texts Herald (the planner answers directly with `answer`); returns every message it sent back. */
  async function ask(from: string, answer: string) {
    harness.anthropic.enqueue({ text: answer });
    const before = harness.twilio.messages.filter((message) => message.to === from).length;
    expect((await harness.inbound({ from, body: 'tell me everything' })).statusCode).toBe(200);
    const sent = (await harness.repliesTo(from, before + 1)).slice(before);
    // The turn is over once its message is marked handled: no further part can follow.
    const user = await harness.database.prisma.user.findFirstOrThrow({ where: { phone: from.replace('whatsapp:', '') } });
    const parts = await harness.database.prisma.outboundMessage.findMany({ where: { userId: user.id } });
    return { sent, parts, userId: user.id };
  }

  async function page(body: string) {
    const token = LINK.exec(body)?.[1];
    expect(token, body).toBeDefined();
    const response = await harness.herald.app.inject({ method: 'GET', url: `/p/${token}` });
    expect(response.statusCode).toBe(200);
    return response.body;
  }

  /** Every sentence of the answer is on the page, in order. */
  function expectWhole(html: string, answer: string) {
    const sentences = answer.split(/(?<=\.)\s+|\n+/).map((part) => part.replace(/^- /, '').trim()).filter(Boolean);
    let from = 0;
    for (const sentence of sentences) {
      const at = html.indexOf(sentence, from);
      expect(at, sentence).toBeGreaterThan(-1);
      from = at + sentence.length;
    }
  }

  it('sends a 3,200-character answer on SMS as one message: a lead cut at a sentence, then the link to all of it', async () => {
    const answer = longAnswer(80);
    expect(answer.length).toBeGreaterThan(3_200);
    const { sent, parts } = await ask(phone, answer);
    expect(sent).toHaveLength(1);
    expect(parts).toHaveLength(1);
    const body = sent[0]!.body!;
    expect(isGsm7(body)).toBe(true);
    expect(smsSegments(body)).toBeLessThanOrEqual(harness.config.outbox.smsMaxSegments);
    const [lead, linkLine] = [body.slice(0, body.lastIndexOf('\n\n')), body.slice(body.lastIndexOf('\n\n') + 2)];
    expect(linkLine).toMatch(new RegExp(`^The whole answer: ${LINK.source}$`));
    // The lead is the answer's beginning (SMS shows list dashes as they are), ending at a sentence.
    expect(answer.startsWith(lead)).toBe(true);
    expect(lead).toMatch(/thing\.$/);
    expect(lead.length).toBeGreaterThan(1_200);
    expect(body).not.toContain('...');

    const html = await page(body);
    expectWhole(html, answer);
    expect(html).toMatch(/<li>first listed point<\/li>/);
    expect((html.match(/<p>/g) ?? []).length).toBeGreaterThanOrEqual(16);
  });

  it('sends a 3,200-character answer on WhatsApp as one message within 1,600 characters', async () => {
    const answer = longAnswer(80);
    const { sent } = await ask(`whatsapp:${phone}`, answer);
    expect(sent).toHaveLength(1);
    const body = sent[0]!.body!;
    expect(body.length).toBeLessThanOrEqual(1_600);
    expect(body.length).toBeGreaterThan(1_400);
    expect(body).toMatch(new RegExp(`The whole answer: ${LINK.source}$`));
    expectWhole(await page(body), answer);
  });

  it('keeps all of a 40,000-character answer on the page', async () => {
    const answer = longAnswer(1_000);
    expect(answer.length).toBeGreaterThan(40_000);
    const { sent } = await ask(phone, answer);
    expect(sent).toHaveLength(1);
    expectWhole(await page(sent[0]!.body!), answer);
  });

  it('cuts a Hebrew answer at a sentence and says so in Hebrew, within the UCS-2 segments', async () => {
    const answer = longAnswer(60, (index) => `זהו משפט מספר ${index} שמספר לכם עוד דבר.`);
    const { sent } = await ask(phone, answer);
    const body = sent[0]!.body!;
    expect(isGsm7(body)).toBe(false);
    expect(smsSegments(body)).toBeLessThanOrEqual(harness.config.outbox.smsMaxSegments);
    expect(body).toMatch(new RegExp(`\\n\\nהתשובה המלאה: ${LINK.source}$`));
    const lead = body.slice(0, body.lastIndexOf('\n\n'));
    expect(answer.startsWith(lead)).toBe(true);
    expect(lead.endsWith('דבר.')).toBe(true);
    expectWhole(await page(body), answer);
  });

  it('sends an answer that is one 2,000-character URL as the link alone: never cut inside it', async () => {
    const url = `https://example.com/${'a1b2c3d4'.repeat(248)}`;
    expect(url.length).toBe(2_004);
    const { sent } = await ask(`whatsapp:${phone}`, url);
    const body = sent[0]!.body!;
    expect(body).toMatch(new RegExp(`^Your answer is too long for a text; here it is: ${LINK.source}$`));
    expect(await page(body)).toContain(url);
  });

  describe('at the limit', () => {
    /** GSM-7 letters and spaces only, exactly `length` characters, ending with a period. */
    const latin = (length: number) => `${'word '.repeat(Math.ceil(length / 5)).slice(0, length - 1).trimEnd().padEnd(length - 1, 'x')}.`;
    const hebrew = (length: number) => `${'מילה '.repeat(Math.ceil(length / 5)).slice(0, length - 1).trimEnd().padEnd(length - 1, 'א')}.`;

    it('sends an SMS answer of exactly SMS_MAX_SEGMENTS segments whole, and one character more as a lead and a page', async () => {
      const exact = latin(153 * 10);
      expect(smsSegments(exact)).toBe(10);
      const whole = await ask(phone, exact);
      expect(whole.sent.map((message) => message.body)).toEqual([exact]);
      const over = await ask(phone, latin(153 * 10 + 1));
      expect(over.sent).toHaveLength(1);
      expect(over.sent[0]!.body).toMatch(LINK);
    });

    it('sends a WhatsApp answer of exactly 1,600 characters whole, and 1,601 as a lead and a page', async () => {
      const whole = await ask(`whatsapp:${phone}`, latin(1_600));
      expect(whole.sent.map((message) => message.body)).toEqual([latin(1_600)]);
      const over = await ask(`whatsapp:${phone}`, latin(1_601));
      expect(over.sent).toHaveLength(1);
      expect(over.sent[0]!.body).toMatch(LINK);
      expect(over.sent[0]!.body!.length).toBeLessThanOrEqual(1_600);
    });

    it('in a right-to-left language: exactly 10 UCS-2 segments whole, one character more as a lead and a page', async () => {
      const exact = hebrew(67 * 10);
      expect(smsSegments(exact)).toBe(10);
      const whole = await ask(phone, exact);
      expect(whole.sent.map((message) => message.body)).toEqual([exact]);
      const over = await ask(phone, hebrew(67 * 10 + 1));
      expect(over.sent).toHaveLength(1);
      const body = over.sent[0]!.body!;
      expect(body).toMatch(new RegExp(`התשובה (המלאה|ארוכה)`));
      expect(smsSegments(body)).toBeLessThanOrEqual(10);
      // No sentence end but the last: the lead is cut at a space, between whole words.
      const lead = body.slice(0, body.lastIndexOf('\n\n'));
      expect(hebrew(67 * 10 + 1).startsWith(lead)).toBe(true);
      expect(lead.endsWith('מילה')).toBe(true);
    });
  });
});
