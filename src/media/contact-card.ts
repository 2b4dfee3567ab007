import { mediaReply } from '../texts/media-replies.js';

/** Imports a contact card's contacts for a user (src/contacts ContactService.importVcards, as a vCard). */
export interface ContactCards {
  import(userId: string, text: string): Promise<{ created: number; updated: number; skipped: number; problems: string[] }>;
  /** The most contacts a user may have (CONTACTS_MAX_PER_USER), for the reply when some were left out. */
  maxPerUser: number;
}

/** What reading one contact card did: Herald's lines for the user, one for the model, and counts for the log. */
export interface ContactCardOutcome {
  saved: number;
  userLines: string[];
  modelNote: string;
  log: { created: number; updated: number; skipped: number; problems: number };
}

/**
 * A contact card sent as an attachment: its contacts imported (a card already imported is
 * updated by its UID), up to the user's limit; the user is told how many were saved, how many
 * the limit left out, and the numbers of the lines that could not be read, in their language.
 * The model is told the same, without the cards' contents.
 */
export async function importContactCard(
  cards: ContactCards,
  userId: string,
  bytes: Buffer,
  reader: { stored: string | null; typed: string; what: string; attachment: number },
): Promise<ContactCardOutcome> {
  const report = await cards.import(userId, bytes.toString('utf8'));
  const saved = report.created + report.updated;
  const say = (kind: Parameters<typeof mediaReply>[0], values: Record<string, string | number>) => mediaReply(kind, reader.stored, values, reader.typed);
  const userLines = [saved > 0 ? say('cardSaved', { what: reader.what, count: saved }) : say('cardNone', { what: reader.what })];
  if (report.skipped > 0) userLines.push(say('cardOverLimit', { count: report.skipped, max: cards.maxPerUser }));
  const unread = unreadLines(report.problems);
  if (unread.count > 0) userLines.push(say('cardUnreadLines', { count: unread.count, lines: unread.lines }));
  const modelNote = `Attachment ${reader.attachment} was a contact card (vCard): Herald saved ${saved} contact${saved === 1 ? '' : 's'} from it (${report.created} new, ${report.updated} updated)${
    report.skipped > 0 ? `, left out ${report.skipped} over the user's limit of ${cards.maxPerUser}` : ''
  }${unread.count > 0 ? `, and could not read ${unread.count} line${unread.count === 1 ? '' : 's'}` : ''}. Herald has told the user; do not repeat it.`;
  return { saved, userLines, modelNote, log: { created: report.created, updated: report.updated, skipped: report.skipped, problems: unread.count } };
}

/** The line numbers of a vCard's unreadable lines ("4, 9, 12") and how many there were in all (src/contacts/vcard.ts words them "line N: …"). */
function unreadLines(problems: string[]): { count: number; lines: string } {
  const numbers = problems.flatMap((problem) => /^line (\d+)/.exec(problem)?.[1] ?? []);
  const more = Number(/^…and (\d+) more/.exec(problems.at(-1) ?? '')?.[1] ?? 0);
  return { count: numbers.length + more, lines: `${numbers.join(', ')}${more > 0 ? ', …' : ''}` };
}
