import type { ImportReport } from '../contacts/contact-service.js';
import { ParseBudgetError } from '../shared/parse-workers.js';
import { mediaReply } from '../texts/media-replies.js';

/** Imports a contact card's contacts for a user (src/contacts ContactService.importVcards, as a vCard). */
export interface ContactCards {
  /** Rejects with a ParseBudgetError when the card took longer than its parse budget (nothing saved). */
  import(userId: string, text: string): Promise<ImportReport>;
  /** The most contacts a user may have (CONTACTS_MAX_PER_USER), for the reply when some were left out. */
  maxPerUser: number;
}

/** What reading one contact card did: Herald's lines for the user, one for the model, and counts for the log. */
export interface ContactCardOutcome {
  saved: number;
  userLines: string[];
  modelNote: string;
  log: { created: number; updated: number; merged: number; skipped: number; refused: number; problems: number; overBudget?: boolean };
}

/**
 * A contact card sent as an attachment: its contacts imported (a card already imported is
 * updated by its UID; cards sharing a UID merged, the last winning), up to the user's limit.
 * The user is told, in their language, how many were saved (new and updated), merged and
 * refused (cut or left out by the limits of src/contacts/contact-limits.ts, with their line
 * numbers), how many the limit left out, and the numbers of the lines that could not be read;
 * a card that could not be read within its parse budget saves nothing and says so. The model
 * is told the same, without the cards' contents.
 */
export async function importContactCard(
  cards: ContactCards,
  userId: string,
  bytes: Buffer,
  reader: { stored: string | null; typed: string; what: string; attachment: number },
): Promise<ContactCardOutcome> {
  const say = (kind: Parameters<typeof mediaReply>[0], values: Record<string, string | number>) => mediaReply(kind, reader.stored, values, reader.typed);
  let report: ImportReport;
  try {
    report = await cards.import(userId, bytes.toString('utf8'));
  } catch (error) {
    if (!(error instanceof ParseBudgetError)) throw error;
    return {
      saved: 0,
      userLines: [say('cardTooSlow', { what: reader.what })],
      modelNote: `Attachment ${reader.attachment} was a contact card (vCard) too large or too slow to read: nothing from it was saved. Herald has told the user; do not repeat it.`,
      log: { created: 0, updated: 0, merged: 0, skipped: 0, refused: 0, problems: 0, overBudget: true },
    };
  }
  const saved = report.created + report.updated;
  const userLines = [saved > 0 ? say('cardSaved', { what: reader.what, count: saved, created: report.created, updated: report.updated, merged: report.merged, refused: report.refused }) : say('cardNone', { what: reader.what })];
  if (report.merged > 0) userLines.push(say('cardMerged', { count: report.merged }));
  if (report.refused > 0) {
    const lines = lineNumbers(report.refusals, report.refused);
    userLines.push(lines ? say('cardRefused', { count: report.refused, lines }) : say('cardRefusedCount', { count: report.refused }));
  }
  if (report.skipped > 0) userLines.push(say('cardOverLimit', { count: report.skipped, max: cards.maxPerUser }));
  if (report.unread > 0) userLines.push(say('cardUnreadLines', { count: report.unread, lines: lineNumbers(report.problems, report.unread) }));
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  const modelNote = `Attachment ${reader.attachment} was a contact card (vCard): Herald saved ${plural(saved, 'contact')} from it (${report.created} new, ${report.updated} updated)${
    report.merged > 0 ? `, merged ${plural(report.merged, 'card')} sharing a UID with a later one` : ''
  }${report.refused > 0 ? `, cut or refused ${plural(report.refused, 'value')} too long or too many` : ''}${report.skipped > 0 ? `, left out ${report.skipped} over the user's limit of ${cards.maxPerUser}` : ''}${
    report.unread > 0 ? `, and could not read ${plural(report.unread, 'line')}` : ''
  }. Herald has told the user; do not repeat it.`;
  return { saved, userLines, modelNote, log: { created: report.created, updated: report.updated, merged: report.merged, skipped: report.skipped, refused: report.refused, problems: report.unread } };
}

/** The line numbers a report's entries name ("4, 9, 12", with ", …" when `total` says there are more), or "" when none names one. */
function lineNumbers(entries: readonly string[], total: number): string {
  const numbers = [...new Set(entries.flatMap((entry) => /^line (\d+)/.exec(entry)?.[1] ?? []))];
  if (numbers.length === 0) return '';
  return `${numbers.join(', ')}${total > entries.length ? ', …' : ''}`;
}
