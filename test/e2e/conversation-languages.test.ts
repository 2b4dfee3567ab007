import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { CheckedScript } from '../helpers/model-script.js';

/**
 * Any language (issue 19, item 8) and a conversation that holds everything Herald sends
 * (item 1), through the webhook: replies come in the language of the user's latest
 * message (the planner names it for the agents; Claude writes them); Herald's own fixed
 * texts come from that language's table; the language a user writes in becomes their
 * stored default (for "2", media, and reminders).
 */
describe('a conversation in any language', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const script = new CheckedScript();
  let counter = 0;
  let phone: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, env: { ANTHROPIC_MAX_RETRIES: '0' } });
  });
  beforeEach(() => {
    // Some tests move the clock on; each starts from the same day.
    clock.set('2030-03-04T13:00:00Z');
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(4900 + counter)}`;
  });
  afterAll(async () => {
    await harness.close();
  });

  async function send(body: string, from = phone): Promise<string> {
    const before = harness.twilio.messages.filter((message) => message.to === from).length;
    expect((await harness.inbound({ from, body })).statusCode).toBe(200);
    return (await harness.repliesTo(from, before + 1))[before]!.body ?? '';
  }
  const user = () => harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });

  it('Spanish: the agents are told Spanish, the YES question is Herald\'s Spanish, the language is remembered, and a later reminder comes in Spanish', async () => {
    harness.anthropic.enqueue({ text: '¡Hola! ¿En qué te ayudo?' });
    expect(await send('hola, ¿qué tal estás hoy?')).toBe('¡Hola! ¿En qué te ayudo?');
    expect(await user()).toMatchObject({ language: 'es' });
    const userId = (await user()).id;
    await harness.herald.lists.addItems(userId, 'compra', ['leche', 'huevos']);
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Borrar la lista', goal: 'Delete the compra list', language: 'Spanish', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Delete the "compra" list' }] } }] },
      script.checked((request) => {
        expect(request.systemText()).toContain('<language>Spanish (write any question or reply for the user in it)</language>');
        return { toolCalls: [{ name: 'delete_list', input: { name: 'compra' } }, { name: 'complete_step', input: { summary: 'Awaiting the YES', reply: 'Tu lista se borrará cuando confirmes.' } }] };
      }),
    );
    expect(await send('borra mi lista de la compra por favor')).toBe('Tu lista se borrará cuando confirmes.\n\nDelete the "compra" list and its 2 items? Responde SÍ o NO.');
    script.rethrow();
    expect(await send('no')).toBe('Vale, no lo haré.');

    const created = await harness.herald.reminders.create(userId, 'America/New_York', { text: 'Llamar a mamá', at: '2030-03-04T09:30' });
    if (!created.ok) throw new Error(created.error);
    clock.set('2030-03-04T14:30:00Z');
    await harness.herald.reminderDelivery.deliver({ reminderId: created.value.id, dueAt: '2030-03-04T14:30:00.000Z' });
    expect((await harness.repliesTo(phone, 4))[3]!.body).toBe('⏰ Recordatorio: Llamar a mamá');
  });

  it('German: when the model fails, the apology is Herald\'s German', async () => {
    harness.anthropic.enqueue({ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } });
    expect(await send('was habe ich morgen alles vor?')).toBe('Sorry, das hat gerade nicht geklappt. Deine Nachricht ist gespeichert; versuch es in einer Minute noch einmal.');
  });

  it('a stored language is only the default: an English message to a Hebrew speaker gets English fixed texts (and English is stored), a message with no words gets the stored Hebrew', async () => {
    await send('hi').catch(() => undefined);
    await harness.database.prisma.user.update({ where: { phone }, data: { language: 'he' } });
    harness.anthropic.reset();
    harness.anthropic.enqueue({ error: { status: 500 } }, { error: { status: 500 } });
    expect(await send('what is on my calendar tomorrow?')).toMatch(/^Sorry, I couldn't get to that just now/);
    expect(await user()).toMatchObject({ language: 'en' });
    await harness.database.prisma.user.update({ where: { phone }, data: { language: 'he' } });
    expect(await send('', phone)).toMatch(/^ההודעה שלך הגיעה אליי ריקה/);
  });

  it('everything Herald sends is in the conversation: a reminder it could not deliver is told, and the notice is a message too; DELETE MY DATA erases them', async () => {
    const whatsapp = `whatsapp:${phone}`;
    harness.anthropic.enqueue({ text: 'Hi!' });
    await send('hi there my friend', whatsapp);
    const userId = (await user()).id;
    const created = await harness.herald.reminders.create(userId, 'America/New_York', { text: 'Pay rent', at: '2030-03-06T09:00' });
    if (!created.ok) throw new Error(created.error);
    // Two days later the WhatsApp window is closed and no template is configured: undeliverable.
    clock.set('2030-03-06T14:00:00Z');
    await harness.herald.reminderDelivery.deliver({ reminderId: created.value.id, dueAt: '2030-03-06T14:00:00.000Z' });
    harness.anthropic.enqueue({ text: 'Sure thing.' });
    const before = harness.twilio.messages.filter((message) => message.to === whatsapp).length;
    await harness.inbound({ from: whatsapp, body: 'are you there today?' });
    const [notice, reply] = (await harness.repliesTo(whatsapp, before + 2)).slice(before);
    expect(notice!.body).toMatch(/^While you were away I couldn't send this reminder/);
    expect(reply!.body).toBe('Sure thing.');
    const kinds = (await harness.database.prisma.message.findMany({ where: { userId, role: 'assistant' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map((message) => message.kind);
    expect(kinds).toEqual(['chat', 'reminder_notice', 'chat']);

    expect(await send('DELETE MY DATA', whatsapp)).toMatch(/Reply YES within 5 minutes to erase it\.$/);
    const erased = harness.twilio.messages.length;
    await harness.inbound({ from: whatsapp, body: 'YES' });
    await harness.twilio.waitForMessages(erased + 1);
    expect(await harness.database.prisma.message.count({ where: { userId } })).toBe(0);
    expect(await harness.database.prisma.pendingQuestion.count({ where: { userId } })).toBe(0);
  });
});

describe('a text Herald sends on its own', () => {
  let harness: HeraldHarness;
  const owner = '+14155554990';
  const invitee = '+14155554991';

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { ACCESS_MODE: 'invite', OWNER_PHONES: owner } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("an owner's invite welcome is a message of the invitee's conversation", async () => {
    expect((await harness.inbound({ from: owner, body: 'INVITE +14155554991 Hi Dana, meet Herald!' })).statusCode).toBe(200);
    const [welcome] = await harness.repliesTo(invitee, 1);
    expect(welcome!.body).toMatch(/^Hi Dana, meet Herald!/);
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: invitee } });
    expect(await harness.database.prisma.message.findMany({ where: { userId: user.id } })).toMatchObject([{ role: 'assistant', kind: 'notice', content: welcome!.body }]);
  });
});
