import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapMailProvider } from '../../src/email/imap-provider.js';
import { MailError } from '../../src/email/mail-message.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { DovecotServer } from '../helpers/dovecot-server.js';
import { localOutbound } from '../helpers/outbound.js';
import { handWritten, rawMail } from './mail-fixtures.js';

/**
 * Filing mail on a real Dovecot: flags for read and unread, MOVE to the archive (made when
 * the server has none), to a folder that exists (never one a typo would make), and to the
 * trash; ids no longer in the inbox are reported missing, not an error.
 */
describe('IMAP filing (a real Dovecot)', () => {
  let dovecot: DovecotServer;
  let provider: ImapMailProvider;
  const clock = new ManualClock('2026-05-20T12:00:00Z');

  const subjectsIn = async (folder: string) => (await dovecot.messages('ana', folder)).map((message) => /^Subject: (.*)$/m.exec(message.raw)?.[1]?.trim()).sort();
  async function deliver(...subjects: string[]): Promise<string[]> {
    for (const subject of subjects) {
      await dovecot.deliver('ana', { raw: await rawMail({ from: 'news@shop.example', to: 'ana@herald.test', subject, text: `About ${subject}`, date: new Date('2026-05-19T08:00:00Z') }), internalDate: new Date('2026-05-19T08:00:00Z') });
    }
    const found = await provider.search({ limit: 50 });
    return subjects.map((subject) => found.messages.find((message) => message.subject === subject)!.id);
  }

  beforeAll(async () => {
    dovecot = await DovecotServer.start({ ana: { password: 'app-password', address: 'ana@herald.test' } });
    provider = new ImapMailProvider({ label: 'Test mail (ana)', settings: { imapUrl: dovecot.url, smtpUrl: 'smtp://127.0.0.1:1', username: 'ana', address: 'ana@herald.test' }, password: 'app-password', timeoutMs: 5000, clock, ids: randomIds, outbound: localOutbound });
  });
  afterAll(async () => {
    await provider?.close();
    await dovecot?.stop();
  });

  it('marks read and unread with the \\Seen flag', async () => {
    const [id] = await deliver('Flag me');
    expect(await provider.file([id!], { action: 'mark_read' })).toEqual({ filed: [id], missing: [] });
    expect((await dovecot.messages('ana')).find((message) => message.raw.includes('Subject: Flag me'))!.flags).toContain('\\Seen');
    await provider.file([id!], { action: 'mark_unread' });
    expect((await dovecot.messages('ana')).find((message) => message.raw.includes('Subject: Flag me'))!.flags).not.toContain('\\Seen');
  });

  it('archives several at once into the archive folder (made when missing); the same ids again are missing', async () => {
    const ids = await deliver('Weekly deals', 'Flash sale');
    expect(await provider.file(ids, { action: 'archive' })).toEqual({ filed: ids, missing: [], folder: 'Archive' });
    expect(await subjectsIn('Archive')).toEqual(['Flash sale', 'Weekly deals']);
    expect(await subjectsIn('INBOX')).not.toContain('Weekly deals');
    expect(await provider.file(ids, { action: 'archive' })).toEqual({ filed: [], missing: ids });
  });

  it('moves to a folder that exists, and refuses one that does not, moving nothing', async () => {
    const client = await dovecot.client('ana');
    await client.mailboxCreate('Receipts');
    await client.logout();
    const [id] = await deliver('Your receipt');
    const refused = await provider.file([id!], { action: 'move', folder: 'Reciepts' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MailError);
    expect((refused as MailError).message).toMatch(/^Test mail \(ana\) has no folder "Reciepts"\. Folders there: .*Receipts.*\. Nothing was moved\.$/);
    expect(await subjectsIn('INBOX')).toContain('Your receipt');
    expect(await provider.file([id!], { action: 'move', folder: 'receipts' })).toEqual({ filed: [id], missing: [], folder: 'Receipts' });
    expect(await subjectsIn('Receipts')).toEqual(['Your receipt']);
  });

  it('deletes into the trash where the server has one', async () => {
    const client = await dovecot.client('ana');
    await client.mailboxCreate('Trash');
    await client.logout();
    const [id] = await deliver('Delete me');
    expect(await provider.file([id!, '1:999999'], { action: 'delete' })).toEqual({ filed: [id], missing: ['1:999999'], folder: 'Trash' });
    expect(await subjectsIn('Trash')).toEqual(['Delete me']);
  });

  it('shows a newsletter\'s unsubscribe links (https and mailto only) and does nothing with them', async () => {
    await dovecot.deliver('ana', {
      raw: handWritten(
        ['From: news@shop.example', 'To: ana@herald.test', 'Subject: Unsubscribable', 'Date: Tue, 19 May 2026 08:00:00 +0000', 'Message-ID: <unsub@shop.example>',
          'List-Unsubscribe: <http://insecure.example/u>, <https://shop.example/unsubscribe?u=1>,', ' <mailto:leave@shop.example?subject=unsubscribe>, <javascript:alert(1)>', 'Content-Type: text/plain; charset=utf-8'],
        'Deals',
      ),
      internalDate: new Date('2026-05-19T08:00:00Z'),
    });
    const found = (await provider.search({ subject: 'Unsubscribable' })).messages[0]!;
    const [message] = await provider.get([found.id]);
    expect(message!.unsubscribe).toEqual(['https://shop.example/unsubscribe?u=1', 'mailto:leave@shop.example?subject=unsubscribe']);
  });
});
