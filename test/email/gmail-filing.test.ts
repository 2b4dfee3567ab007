import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionStore } from '../../src/connections/connection-store.js';
import { GoogleAccounts } from '../../src/connections/google-accounts.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { GMAIL_SCOPES, GmailProvider } from '../../src/email/gmail-provider.js';
import { MailError } from '../../src/email/mail-message.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { systemClock } from '../../src/shared/clock.js';
import { SequentialIds } from '../../src/shared/ids.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const GRANT = `openid email ${GMAIL_SCOPES.join(' ')}`;

/**
 * Filing Gmail by labels against the fake Gmail API, which is as strict as Google's about the
 * shapes of messages.batchModify, messages.trash and labels.list: read/unread is UNREAD, archive
 * takes INBOX away, a move adds an existing user label (never makes one), delete is trash (never
 * for good); unknown or trashed ids are reported missing; a connection without gmail.modify is
 * told to reconnect and Google is asked nothing that changes mail.
 */
describe('Gmail filing (the official client against the strict fake Gmail)', () => {
  let database: TestDatabase;
  let google: FakeGoogleServer;
  let store: ConnectionStore;
  let accounts: GoogleAccounts;
  let userId: string;
  let counter = 0;

  beforeAll(async () => {
    [database, google] = await Promise.all([createTestDatabase(2), FakeGoogleServer.start()]);
    userId = (await database.prisma.user.create({ data: { phone: '+14155550192', timezone: 'America/New_York', updatedAt: new Date() } })).id;
    store = new ConnectionStore(database.prisma, new SecretBox(Buffer.alloc(32, 7)), systemClock);
    const env = google.env();
    accounts = new GoogleAccounts(
      { clientId: env.GOOGLE_CLIENT_ID!, clientSecret: env.GOOGLE_CLIENT_SECRET!, authUrl: env.GOOGLE_OAUTH_AUTH_URL!, tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL!, revokeUrl: env.GOOGLE_OAUTH_REVOKE_URL!, apiBaseUrl: env.GOOGLE_API_BASE_URL! },
      'https://herald.test/oauth/google/callback',
      store,
      createSilentLogger(),
    );
  });
  afterAll(async () => {
    await google.close();
    await database.drop();
  });

  async function connect(scope = GRANT) {
    counter += 1;
    const email = `filer${counter}@gmail.com`;
    const connection = await store.save(userId, { provider: 'google', account: email, label: `Google (${email})`, scopes: scope.split(' '), settings: {}, secrets: google.grant(email, scope) });
    const provider = new GmailProvider(connection, { accounts, timeoutMs: 5000, clock: systemClock, ids: new SequentialIds() });
    const deliver = async (subject: string) => google.gmail.deliver(email, await new MailComposer({ from: 'news@shop.example', to: email, subject, text: `About ${subject}`, date: new Date() }).compile().build());
    return { email, provider, deliver };
  }

  it('marks read and unread with the UNREAD label, in one batchModify', async () => {
    const { email, provider, deliver } = await connect();
    const id = await deliver('Flag me');
    expect(await provider.file([id], { action: 'mark_read' })).toEqual({ filed: [id], missing: [] });
    expect(google.gmail.labelsOfMessage(email, id)).toEqual(['INBOX']);
    await provider.file([id], { action: 'mark_unread' });
    expect(google.gmail.labelsOfMessage(email, id)).toEqual(['INBOX', 'UNREAD']);
    expect(google.gmail.modifyRequests.filter((request) => request.email === email)).toEqual([
      { email, endpoint: 'batchModify', ids: [id], addLabelIds: [], removeLabelIds: ['UNREAD'] },
      { email, endpoint: 'batchModify', ids: [id], addLabelIds: ['UNREAD'], removeLabelIds: [] },
    ]);
  });

  it('archives several at once by taking INBOX away; unknown and malformed ids are missing, not an error', async () => {
    const { email, provider, deliver } = await connect();
    const ids = [await deliver('Weekly deals'), await deliver('Flash sale')];
    const result = await provider.file([...ids, 'ffff00000000', 'not an id'], { action: 'archive' });
    expect(result).toEqual({ filed: ids, missing: ['ffff00000000', 'not an id'], folder: 'All Mail' });
    for (const id of ids) expect(google.gmail.labelsOfMessage(email, id)).toEqual(['UNREAD']);
    expect(google.gmail.modifyRequests.filter((request) => request.email === email)).toEqual([{ email, endpoint: 'batchModify', ids, addLabelIds: [], removeLabelIds: ['INBOX'] }]);
  });

  it('moves to a user label that exists (by name, any case), and refuses one that does not, moving nothing', async () => {
    const { email, provider, deliver } = await connect();
    const receipts = google.gmail.createLabel(email, 'Receipts');
    const id = await deliver('Your receipt');
    const refused = await provider.file([id], { action: 'move', folder: 'Reciepts' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MailError);
    expect(refused).toMatchObject({ failure: 'not_found', message: expect.stringContaining('has no label "Reciepts". Labels there: Receipts. Nothing was moved.') });
    expect(google.gmail.labelsOfMessage(email, id)).toContain('INBOX');
    expect(await provider.file([id], { action: 'move', folder: 'receipts' })).toEqual({ filed: [id], missing: [], folder: 'Receipts' });
    expect(google.gmail.labelsOfMessage(email, id)).toEqual([receipts, 'UNREAD'].sort());
  });

  it('delete moves to the trash (never deletes for good); a trashed id is missing the second time', async () => {
    const { email, provider, deliver } = await connect();
    const id = await deliver('Spammy');
    expect(await provider.file([id], { action: 'delete' })).toEqual({ filed: [id], missing: [], folder: 'Trash' });
    expect(google.gmail.labelsOfMessage(email, id)).toEqual(['TRASH', 'UNREAD']);
    expect(google.gmail.messages(email)).toHaveLength(1);
    expect(await provider.file([id], { action: 'delete' })).toEqual({ filed: [], missing: [id] });
  });

  it('a mailbox connected with read and send only: told to connect again, and Google is asked to change nothing', async () => {
    const { email, provider, deliver } = await connect('openid email https://www.googleapis.com/auth/gmail.readonly https://www.googleapis.com/auth/gmail.send');
    const id = await deliver('Keep me');
    await expect(provider.file([id], { action: 'archive' })).rejects.toMatchObject({ failure: 'unauthorized', message: expect.stringMatching(/not allowed to file mail.*Nothing was changed.*connect my email/) });
    expect(google.gmail.modifyRequests.filter((request) => request.email === email)).toEqual([]);
    expect(google.gmail.labelsOfMessage(email, id)).toContain('INBOX');
  });

  it('the fake is as strict as Gmail: a readonly token may not modify, and bad bodies are 400s', async () => {
    const { email, deliver } = await connect();
    const id = await deliver('Strict');
    const readonly = google.grant(email, 'openid email https://www.googleapis.com/auth/gmail.readonly');
    const full = google.grant(email, GRANT);
    const post = async (path: string, token: string, body: unknown) => {
      const response = await fetch(`${google.url}/gmail/v1/users/me/${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return response.status;
    };
    expect(await post('messages/batchModify', readonly.accessToken, { ids: [id], removeLabelIds: ['UNREAD'] })).toBe(403);
    expect(await post('messages/batchModify', full.accessToken, { ids: [], removeLabelIds: ['UNREAD'] })).toBe(400);
    expect(await post('messages/batchModify', full.accessToken, { ids: [id], addLabelIds: ['TRASH'] })).toBe(400);
    expect(await post('messages/batchModify', full.accessToken, { ids: [id], addLabelIds: ['Label_99'] })).toBe(400);
    expect(await post('messages/batchModify', full.accessToken, { ids: [id] })).toBe(400);
    expect(await post('messages/batchModify', full.accessToken, { id, removeLabelIds: ['UNREAD'] })).toBe(400);
    expect(await post(`messages/${id}/modify`, full.accessToken, { ids: [id], removeLabelIds: ['UNREAD'] })).toBe(400);
    expect(await post('messages/ffff00000000/trash', full.accessToken, {})).toBe(404);
    expect(await post(`messages/${id}/modify`, full.accessToken, { removeLabelIds: ['UNREAD'] })).toBe(200);
  });
});
