import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContentCreateRequest } from 'twilio/lib/rest/content/v1/content.js';
import { createTwilioClient } from '../../src/channels/twilio-request-client.js';
import { CONFIRM_SHAPE, listShape } from '../../src/outbox/one-tap.js';
import { FakeTwilioServer } from './fake-twilio-server.js';

/** The fake's Content API and typing indicators, held to what Twilio refuses, through the real SDK. */
describe('the fake Twilio Content API and typing indicators', () => {
  let fake: FakeTwilioServer;
  let client: ReturnType<typeof createTwilioClient>;
  beforeAll(async () => {
    fake = await FakeTwilioServer.start();
    client = createTwilioClient({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  const create = (body: unknown) => client.content.v1.contents.create(body as ContentCreateRequest);
  const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: { status?: number; code?: number; message?: string }) => ({ status: error.status, code: error.code, message: error.message }));

  it('makes Herald\'s shapes (quick reply, list pickers of 1 to 10) and answers their SIDs', async () => {
    for (const shape of [CONFIRM_SHAPE, listShape(1), listShape(10)]) {
      const created = await create(shape.definition);
      expect(created.sid).toMatch(/^HX[0-9a-f]{32}$/);
      expect(fake.content.contents.get(created.sid)?.types).toEqual(shape.definition.types);
    }
  });

  it.each([
    ['the SDK\'s camelCase names', { language: 'en', types: { twilioQuickReply: { body: 'x', actions: [{ title: 'Yes' }] } } }],
    ['no language', { types: { 'twilio/text': { body: 'x' } } }],
    ['no types', { language: 'en', types: {} }],
    ['eleven quick replies', { language: 'en', types: { 'twilio/quick-reply': { body: 'x', actions: Array.from({ length: 11 }, (_, index) => ({ title: `B${index}` })) } } }],
    ['a title over 20 characters', { language: 'en', types: { 'twilio/quick-reply': { body: 'x', actions: [{ title: 'A very long button title' }] } } }],
    ['eleven list items', { language: 'en', types: { 'twilio/list-picker': { body: 'x', button: 'Pick', items: Array.from({ length: 11 }, (_, index) => ({ item: `I${index}`, id: `i${index}` })) } } }],
    ['a placeholder with no default', { language: 'en', types: { 'twilio/text': { body: 'Hi {{1}}' } } }],
  ])('refuses %s with a 400 in Twilio\'s error shape', async (_what, body) => {
    expect(await refusal(create(body))).toMatchObject({ status: 400, code: 20001 });
  });

  it('a 500 queued with failNext comes back as a RestException', async () => {
    fake.content.failNext({ status: 500 });
    expect(await refusal(create(CONFIRM_SHAPE.definition))).toMatchObject({ status: 500, code: 20500 });
  });

  it('sends a content with variables, rendered; refuses an unknown ContentSid (21655), bad variables (21656), a filled title over 20 (21656)', async () => {
    const { sid } = await create(CONFIRM_SHAPE.definition);
    const variables = { '1': 'Delete it?', '2': 'Yes', '3': 'herald:abcdefgh:yes', '4': 'No', '5': 'herald:abcdefgh:no' };
    const sent = await client.messages.create({ to: 'whatsapp:+14155550100', from: 'whatsapp:+14155238886', contentSid: sid, contentVariables: JSON.stringify(variables) });
    expect(sent.body).toBe('Delete it?');
    expect(await refusal(client.messages.create({ to: 'whatsapp:+14155550100', from: 'whatsapp:+14155238886', contentSid: 'HX' + 'e'.repeat(32) }))).toMatchObject({ status: 400, code: 21655 });
    expect(await refusal(client.messages.create({ to: 'whatsapp:+14155550100', from: 'whatsapp:+14155238886', contentSid: sid, contentVariables: 'not json' }))).toMatchObject({ status: 400, code: 21656 });
    expect(await refusal(client.messages.create({ to: 'whatsapp:+14155550100', from: 'whatsapp:+14155238886', contentSid: sid, contentVariables: JSON.stringify({ ...variables, '2': 'Yes, please do delete it' }) }))).toMatchObject({ status: 400, code: 21656 });
  });

  it('reads a content\'s WhatsApp approval', async () => {
    fake.content.register('HX' + '1'.repeat(32), { approval: 'rejected' });
    const approval = await client.content.v1.contents('HX' + '1'.repeat(32)).approvalFetch().fetch();
    expect((approval.whatsapp as unknown as { status: string }).status).toBe('rejected');
  });

  it('typing indicators: success for a message SID on whatsapp; 400 for another channel, a non-SID, or an old message', async () => {
    const sid = 'SM' + '3'.repeat(32);
    expect((await client.messaging.v2.typingIndicator.create({ channel: 'whatsapp', messageId: sid })).success).toBe(true);
    expect(await refusal(client.messaging.v2.typingIndicator.create({ channel: 'sms', messageId: sid }))).toMatchObject({ status: 400 });
    expect(await refusal(client.messaging.v2.typingIndicator.create({ channel: 'whatsapp', messageId: 'hello' }))).toMatchObject({ status: 400 });
    fake.typing.markOld(sid);
    expect(await refusal(client.messaging.v2.typingIndicator.create({ channel: 'whatsapp', messageId: sid }))).toMatchObject({ status: 400 });
    expect(fake.typing.accepted).toHaveLength(1);
  });

  it('refuses every one of these without the account\'s credentials (401)', async () => {
    const stranger = createTwilioClient({ accountSid: fake.accountSid, authToken: 'wrong', apiBaseUrl: fake.url });
    expect(await refusal(stranger.content.v1.contents.create(CONFIRM_SHAPE.definition as unknown as ContentCreateRequest))).toMatchObject({ status: 401, code: 20003 });
    expect(await refusal(stranger.messaging.v2.typingIndicator.create({ channel: 'whatsapp', messageId: 'SM' + '3'.repeat(32) }))).toMatchObject({ status: 401 });
  });
});
