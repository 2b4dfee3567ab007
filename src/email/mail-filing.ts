import type { ImapFlow } from 'imapflow';
import { MailError } from './mail-message.js';

/** What filing does to messages: archive, mark read or unread, move to a folder (Gmail: a label), delete. */
export type MailFiling = { action: 'archive' } | { action: 'mark_read' } | { action: 'mark_unread' } | { action: 'move'; folder: string } | { action: 'delete' };

/** What filing did: the messages it filed, and the ids it could not find (already moved, or never there). */
export interface FilingResult {
  filed: string[];
  missing: string[];
  /** Where they went, for archive, move and delete. */
  folder?: string | undefined;
}

/** The folder names servers use when they do not mark one with its special use. */
const FALLBACK_NAMES: Record<'\\Archive' | '\\Trash', RegExp> = { '\\Archive': /^(archive|archives|all mail)$/i, '\\Trash': /^(trash|deleted items|deleted messages|bin)$/i };

/** A folder by its special use (RFC 6154), else by its usual name; the archive is made when there is none. */
async function specialFolder(client: ImapFlow, use: '\\Archive' | '\\Trash'): Promise<string | undefined> {
  const folders = await client.list();
  const found = folders.find((folder) => folder.specialUse === use) ?? folders.find((folder) => FALLBACK_NAMES[use].test(folder.name));
  if (found) return found.path;
  if (use === '\\Trash') return undefined;
  const created = await client.mailboxCreate('Archive');
  return created.path;
}

/**
 * Files INBOX messages on an IMAP server, by UID, in one session: flags (\Seen) for read and
 * unread, MOVE (RFC 6851; imapflow falls back to COPY + EXPUNGE where the server lacks it)
 * to the archive, a folder or the trash. A folder to move to must exist (a typo never makes
 * a new one); delete moves to the trash, or where the server has none, flags \Deleted and
 * expunges. Only UIDs still in the INBOX are touched; the others are reported missing.
 */
export async function fileInInbox(client: ImapFlow, uidsOf: (uidValidity: string) => number[], filing: MailFiling, label: string): Promise<{ filed: number[]; folder?: string | undefined }> {
  const lock = await client.getMailboxLock('INBOX');
  try {
    // Ids carry the UIDVALIDITY they were found under: a rebuilt mailbox files nothing rather than the wrong mail.
    const uids = client.mailbox ? uidsOf(String(client.mailbox.uidValidity)) : [];
    const present = uids.length > 0 ? ((await client.search({ uid: uids.join(',') }, { uid: true })) || []) : [];
    if (present.length === 0) return { filed: [] };
    const range = present.join(',');
    switch (filing.action) {
      case 'mark_read':
        await client.messageFlagsAdd(range, ['\\Seen'], { uid: true });
        return { filed: present };
      case 'mark_unread':
        await client.messageFlagsRemove(range, ['\\Seen'], { uid: true });
        return { filed: present };
      case 'archive': {
        const folder = await specialFolder(client, '\\Archive');
        await client.messageMove(range, folder!, { uid: true });
        return { filed: present, folder };
      }
      case 'move': {
        const folders = await client.list();
        const wanted = filing.folder.trim().toLowerCase();
        const folder = folders.find((candidate) => candidate.path.toLowerCase() === wanted) ?? folders.find((candidate) => candidate.name.toLowerCase() === wanted);
        if (!folder) {
          const names = folders.filter((candidate) => !candidate.flags.has('\\Noselect')).map((candidate) => candidate.path).sort();
          throw new MailError('not_found', `${label} has no folder "${filing.folder}". Folders there: ${names.join(', ')}. Nothing was moved.`);
        }
        if (folder.path.toUpperCase() === 'INBOX') return { filed: [], folder: folder.path };
        await client.messageMove(range, folder.path, { uid: true });
        return { filed: present, folder: folder.path };
      }
      case 'delete': {
        const trash = await specialFolder(client, '\\Trash');
        if (trash) await client.messageMove(range, trash, { uid: true });
        else await client.messageDelete(range, { uid: true });
        return { filed: present, folder: trash };
      }
    }
  } finally {
    lock.release();
  }
}
