import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fallbackReply } from '../../src/orchestrator/fallback-replies.js';
import { NO_TEXT_PLACEHOLDER } from '../../src/orchestrator/prompts/conversation-messages.js';
import type { RecordedAnthropicRequest } from '../fakes/fake-anthropic-server.js';
import type { SentTwilioMessage } from '../fakes/fake-twilio-server.js';
import { HERALD_WHATSAPP_NUMBER, HeraldHarness } from '../helpers/herald-harness.js';

const MEDIA_ONLY_REPLY = fallbackReply('mediaOnly', null);

/** The Messages API refuses any message with empty (or whitespace-only) content. */
function expectNoEmptyContent(request: RecordedAnthropicRequest): void {
  const messages = request.body.messages ?? [];
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    expect(text.trim(), `a ${message.role} message is empty`).not.toBe('');
    if (Array.isArray(message.content)) expect(message.content.length).toBeGreaterThan(0);
  }
}

describe('media: photos and voice notes Herald cannot read', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('answers a photo with no caption by asking for words, without calling the model', async () => {
    const phone = '+13125550101';
    await harness.inbound({ from: phone, body: '', numMedia: 1, extra: { MediaUrl0: 'https://api.twilio.com/media/ME1', MediaContentType0: 'image/jpeg' } });

    const [reply] = await harness.repliesTo(phone, 1);
    expect(reply?.body).toBe(MEDIA_ONLY_REPLY);
    expect(reply?.body).toMatch(/^I can only read text for now/);
    expect(harness.anthropic.requests).toHaveLength(0);
    const turn = await harness.database.prisma.turn.findFirstOrThrow({ where: { user: { phone } } });
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 0 });
  });

  it('answers a WhatsApp voice note the same way, on WhatsApp', async () => {
    const address = 'whatsapp:+13125550102';
    await harness.inbound({ from: address, numMedia: 1, extra: { MediaContentType0: 'audio/ogg' } });

    const [reply] = await harness.repliesTo(address, 1);
    expect(reply).toMatchObject({ from: HERALD_WHATSAPP_NUMBER, body: MEDIA_ONLY_REPLY });
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('sends a captioned photo to the model, telling it about the attachment it cannot open', async () => {
    const phone = '+13125550103';
    harness.anthropic.enqueue({ text: "I can't see photos yet, but tell me about the receipt." });
    await harness.inbound({ from: phone, body: 'what do you think of this receipt?', numMedia: 1 });

    const [reply] = await harness.repliesTo(phone, 1);
    expect(reply?.body).toBe("I can't see photos yet, but tell me about the receipt.");
    expect(harness.anthropic.requests).toHaveLength(1);
    const userText = harness.anthropic.requests[0]!.lastUserText();
    expect(userText).toContain('what do you think of this receipt?');
    expect(userText).toMatch(/1 attachment that Herald cannot open/);
  });

  it('counts several attachments', async () => {
    const phone = '+13125550104';
    harness.anthropic.enqueue({ text: 'Got it.' });
    await harness.inbound({ from: phone, body: 'three photos of my garden', numMedia: 3 });
    await harness.repliesTo(phone, 1);
    expect(harness.anthropic.requests[0]!.lastUserText()).toMatch(/3 attachments that Herald cannot open/);
  });

  it('keeps working after an attachment-only message: the next request has no empty message in its history', async () => {
    const phone = '+13125550105';
    await harness.inbound({ from: phone, numMedia: 1 });
    await harness.repliesTo(phone, 1);

    harness.anthropic.enqueue({ text: 'A cat! Lovely.' });
    await harness.inbound({ from: phone, body: 'it was a photo of my cat' });
    const replies = await harness.repliesTo(phone, 2);
    expect(replies[1]?.body).toBe('A cat! Lovely.');

    const request = harness.anthropic.requests[0]!;
    expectNoEmptyContent(request);
    const messages = request.body.messages ?? [];
    // The earlier exchange is there, the attachment-only message as a placeholder.
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[0]?.content).toBe(NO_TEXT_PLACEHOLDER);
    expect(messages[1]?.content).toBe(MEDIA_ONLY_REPLY);
    expect(messages[2]?.content).toBe('it was a photo of my cat');
  });

  it('answers a text-less message without media (an empty SMS, a WhatsApp location pin) without calling the model', async () => {
    const address = 'whatsapp:+13125550106';
    await harness.inbound({ from: address, body: '', extra: { Latitude: '51.5', Longitude: '-0.12' } });
    const [reply] = await harness.repliesTo(address, 1);
    expect(reply?.body).toBe(fallbackReply('empty', null));

    await harness.inbound({ from: '+13125550107', body: '   ' });
    const [empty] = await harness.repliesTo('+13125550107', 1);
    expect(empty?.body).toBe(fallbackReply('empty', null));
    expect(harness.anthropic.requests).toHaveLength(0);
    const turns = await harness.database.prisma.turn.findMany({ where: { user: { phone: { in: ['+13125550106', '+13125550107'] } } } });
    expect(turns.map((turn) => [turn.status, turn.modelCalls])).toEqual([
      ['succeeded', 0],
      ['succeeded', 0],
    ]);
  });
});
