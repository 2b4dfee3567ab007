import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { singleStepPlan } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';

/**
 * Herald's own words for notes and contacts come from src/texts in the reader's language,
 * through the webhook: deleting a note asked and done in French, a contact in Hebrew.
 */
const complete = (reply: string): ScriptedAnthropicResponse => ({ toolCalls: [{ name: 'complete_step', input: { summary: reply, reply } }] });

describe("notes' and contacts' fixed texts in the reader's language", () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(7500 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await harness?.close();
  });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    harness.anthropic.rethrowScriptErrors();
    return reply;
  }

  it('a note deleted in French: the question and the answer to OUI are French', async () => {
    await harness.database.prisma.user.update({ where: { id: userId }, data: { language: 'fr' } });
    const saved = await harness.herald.brain.notes.save(userId, { title: 'Vieille idée', body: 'Des cartes de fidélité pour la boutique' });
    if (!saved.ok) throw new Error(saved.error);
    harness.anthropic.enqueue(singleStepPlan('memory-agent', `Delete the note ${saved.value.note.id}`), { toolCalls: [{ name: 'delete_note', input: { noteId: saved.value.note.id } }] }, complete("C'est en attente de votre OUI."));
    expect(await send('supprime ma note sur la vieille idée de la boutique')).toContain('Supprimer la note "Vieille idée" ?');
    expect(await send('OUI')).toBe('Note "Vieille idée" supprimée.');
    expect(await harness.database.prisma.note.count({ where: { userId } })).toBe(0);
  });

  it('a contact deleted in Hebrew: the question and the answer to כן are Hebrew', async () => {
    await harness.database.prisma.user.update({ where: { id: userId }, data: { language: 'he' } });
    const saved = await harness.herald.contacts.contacts.create(userId, { name: 'דנה כץ', emails: ['dana@katz.example'] });
    if (!saved.ok) throw new Error(saved.error);
    harness.anthropic.enqueue(singleStepPlan('contacts-agent', `Delete contact ${saved.value.contact.id}`), { toolCalls: [{ name: 'delete_contact', input: { contactId: saved.value.contact.id } }] }, complete('מחכה לאישור שלך.'));
    expect(await send('תמחק את דנה כץ מאנשי הקשר שלי')).toContain('למחוק את דנה כץ מאנשי הקשר שלך?');
    expect(await send('כן')).toBe('דנה כץ נמחק/ה מאנשי הקשר שלך.');
    expect(await harness.database.prisma.contact.count({ where: { userId } })).toBe(0);
  });
});
