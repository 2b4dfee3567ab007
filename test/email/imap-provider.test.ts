import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapMailProvider, type ImapSettings } from '../../src/email/imap-provider.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { DovecotServer } from '../helpers/dovecot-server.js';
import type { OutboundAccess } from '../../src/net/outbound-policy.js';
import { localOutbound } from '../helpers/outbound.js';
import { itWhen } from '../helpers/preconditions.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';
import { rawMail } from './mail-fixtures.js';
import { describeMailProvider, failure } from './provider-contract.js';

const clock = new ManualClock('2026-05-20T12:00:00Z');

function imapProvider(settings: ImapSettings, password: string, outbound: OutboundAccess = localOutbound): ImapMailProvider {
  return new ImapMailProvider({ label: `Test mail (${settings.username})`, settings, password, timeoutMs: 5000, clock, ids: randomIds, outbound });
}

describeMailProvider('IMAP + SMTP (a real Dovecot, an SMTP receiver)', async () => {
  const dovecot = await DovecotServer.start({ ana: { password: 'app-password', address: 'ana@herald.test' } });
  const smtp = await SmtpReceiver.start(dovecot);
  return {
    provider: imapProvider({ imapUrl: dovecot.url, smtpUrl: smtp.url, username: 'ana', address: 'ana@herald.test' }, 'app-password'),
    address: 'ana@herald.test',
    seed: async (raw, options) => {
      await dovecot.deliver('ana', { raw, internalDate: options.date, seen: options.seen ?? false });
    },
    receivedBy: async (address) => smtp.received.filter((mail) => mail.recipients.includes(address)).map((mail) => mail.raw),
    sentFolder: async () => (await dovecot.messages('ana', 'Sent')).map((message) => message.raw),
    refuseRecipient: (address) => smtp.refuse(address),
    close: async () => {
      await smtp.stop();
      await dovecot.stop();
    },
  };
});

describe('IMAP provider: sessions, faults and size', () => {
  let dovecot: DovecotServer;
  let smtp: SmtpReceiver;
  let proxy: TcpFaultProxy;
  const settings = (): ImapSettings => ({ imapUrl: proxy.url('imap'), smtpUrl: smtp.url, username: 'ana', address: 'ana@herald.test' });

  beforeAll(async () => {
    dovecot = await DovecotServer.start({
      ana: { password: 'app-password', address: 'ana@herald.test' },
      bulk: { password: 'bulk-password', address: 'bulk@herald.test' },
      saved: { password: 'saved-password', address: 'saved@herald.test' },
      // A mailbox no other test sends from: it has no Sent folder until this file's first send.
      fresh: { password: 'fresh-password', address: 'fresh@herald.test' },
    });
    smtp = await SmtpReceiver.start(dovecot);
    proxy = await TcpFaultProxy.start(dovecot.port);
    await dovecot.deliver('ana', { raw: await rawMail({ from: 'dana@example.com', to: 'ana@herald.test', subject: 'Hello', text: 'Hello Ana', date: new Date('2026-05-19T08:00:00Z') }), internalDate: new Date('2026-05-19T08:00:00Z') });
  });
  afterAll(async () => {
    await proxy?.close();
    await smtp?.stop();
    await dovecot?.stop();
  });

  it('keeps message ids across sessions (UIDVALIDITY:UID)', async () => {
    const first = imapProvider(settings(), 'app-password');
    const [found] = (await first.search({ from: 'dana@example.com' })).messages;
    expect(found!.id).toMatch(/^\d+:\d+$/);
    await first.close();
    const second = imapProvider(settings(), 'app-password');
    expect((await second.get([found!.id]))[0]).toMatchObject({ subject: 'Hello', text: 'Hello Ana' });
    // Another UIDVALIDITY (the server rebuilt the mailbox): the old id finds nothing rather than another mail.
    const [, uid] = found!.id.split(':');
    expect(await second.get([`1:${uid}`])).toEqual([]);
    await second.close();
  });

  it('finds mail with every word of a search, in any order, and a "quoted phrase" as it is', async () => {
    const date = new Date('2026-05-19T10:00:00Z');
    await dovecot.deliver('ana', { raw: await rawMail({ from: 'kayak@example.com', to: 'ana@herald.test', subject: 'Booking', text: 'Your rental of the kayak is confirmed for Sunday.', date }), internalDate: date });
    const provider = imapProvider(settings(), 'app-password');
    expect((await provider.search({ text: 'kayak rental' })).messages.map((message) => message.from.address)).toEqual(['kayak@example.com']);
    expect((await provider.search({ text: 'kayak rental sunday confirmed' })).total).toBe(1);
    expect((await provider.search({ text: 'kayak canoe' })).total).toBe(0);
    expect((await provider.search({ text: '"kayak rental"' })).total).toBe(0);
    expect((await provider.search({ text: '"rental of the kayak"' })).total).toBe(1);
    await provider.close();
  });

  it('reuses one connection for a series of calls', async () => {
    const provider = imapProvider(settings(), 'app-password');
    const connections = proxy.connections;
    await provider.search({ from: 'dana@example.com' });
    await provider.search({ subject: 'Hello' });
    const [found] = (await provider.search({ text: 'Hello Ana' })).messages;
    await provider.get([found!.id]);
    expect(proxy.connections).toBe(connections + 1);
    await provider.close();
  });

  it('says a wrong password is unauthorized, at once and without retrying', async () => {
    const provider = imapProvider(settings(), 'wrong-password');
    const error = await failure(provider.search({}));
    expect(error.failure).toBe('unauthorized');
    expect(error.message).toMatch(/refused the username or password/);
    expect(error.message).not.toContain('wrong-password');
    await provider.close();
  });

  it('says a server that is down is unreachable', async () => {
    await proxy.close();
    try {
      const provider = imapProvider(settings(), 'app-password');
      const error = await failure(provider.search({}));
      expect(error.failure).toBe('unreachable');
      expect(error.message).toMatch(/could not be reached|kept dropping/);
      await provider.close();
    } finally {
      await proxy.reopen();
    }
  });

  it('retries once when the connection drops mid-fetch, then gives a clear error if it drops again', async () => {
    const provider = imapProvider(settings(), 'app-password');
    const [found] = (await provider.search({ from: 'dana@example.com' })).messages;
    proxy.dropOn(/UID FETCH .*BODY\.PEEK\[1\]/i, 1);
    expect((await provider.get([found!.id]))[0]!.text).toBe('Hello Ana');
    expect(proxy.drops).toBe(1);
    proxy.dropOn(/UID FETCH .*BODY\.PEEK\[1\]/i, 2);
    const error = await failure(provider.get([found!.id]));
    expect(error.failure).toBe('unreachable');
    expect(error.message).toMatch(/kept dropping/);
    expect(proxy.drops).toBe(3);
    // And the provider recovers once the line is good again.
    expect((await provider.get([found!.id]))[0]!.text).toBe('Hello Ana');
    await provider.close();
  });

  it('reads a 20 MB mail with attachments as headers and text, never downloading the attachments', async () => {
    const date = new Date('2026-05-19T09:00:00Z');
    await dovecot.deliver('ana', {
      raw: await rawMail({
        from: 'photos@example.com',
        to: 'ana@herald.test',
        subject: 'All the photos',
        text: 'Here are all the photos from the trip.',
        date,
        attachments: [
          { filename: 'photos-1.zip', contentType: 'application/zip', content: Buffer.alloc(10 * 1024 * 1024, 1) },
          { filename: 'photos-2.zip', contentType: 'application/zip', content: Buffer.alloc(5 * 1024 * 1024, 2) },
        ],
      }),
      internalDate: date,
    });
    const provider = imapProvider(settings(), 'app-password');
    await provider.search({ from: 'nobody-yet@example.com' });
    proxy.resetCount();
    const [found] = (await provider.search({ from: 'photos@example.com' })).messages;
    const [read] = await provider.get([found!.id]);
    expect(read).toMatchObject({ subject: 'All the photos', text: 'Here are all the photos from the trip.', hasAttachments: true });
    expect(read!.attachments.map((attachment) => attachment.filename)).toEqual(['photos-1.zip', 'photos-2.zip']);
    expect(read!.attachments[0]!.size).toBeGreaterThan(10_000_000);
    // The mail is about 20 MB as stored (base64); the search and the read moved a few kilobytes.
    expect(proxy.serverBytes).toBeLessThan(50_000);
    await provider.close();
  });

  it('bounds a search matching 5,000 mails and counts them all', async () => {
    const mails = [];
    for (let index = 0; index < 5000; index += 1) {
      const date = new Date(Date.UTC(2026, 0, 1) + index * 60_000);
      mails.push({ raw: `From: promo@shop.example\r\nTo: bulk@herald.test\r\nSubject: Sale ${index}\r\nDate: ${date.toUTCString()}\r\nMessage-ID: <sale-${index}@shop.example>\r\n\r\nSale number ${index}.\r\n`, internalDate: date });
    }
    await dovecot.seedMaildir('bulk', mails);
    const provider = imapProvider({ ...settings(), imapUrl: dovecot.url, username: 'bulk', address: 'bulk@herald.test' }, 'bulk-password');
    const found = await provider.search({ from: 'promo@shop.example', limit: 1000 });
    expect(found.total).toBe(5000);
    expect(found.messages).toHaveLength(25);
    expect(found.messages[0]!.subject).toBe('Sale 4999');
    const january2 = await provider.search({ from: 'promo@shop.example', since: new Date('2026-01-02T00:00:00Z'), before: new Date('2026-01-03T00:00:00Z') });
    expect(january2.total).toBe(1440);
    expect(january2.messages[0]!.subject).toBe('Sale 2879');
    await provider.close();
  });

  it('creates a special-use Sent folder when there is none, and leaves Sent alone when the server saves sent mail itself', async () => {
    expect((await dovecot.folders('fresh')).some((folder) => folder.path === 'Sent')).toBe(false);
    const provider = imapProvider({ ...settings(), username: 'fresh', address: 'fresh@herald.test' }, 'fresh-password');
    await provider.send({ to: ['dana@example.com'], cc: [], subject: 'Hi', text: 'Hi Dana' });
    expect(await dovecot.folders('fresh')).toContainEqual({ path: 'Sent', specialUse: '\\Sent' });
    expect(await dovecot.messages('fresh', 'Sent')).toHaveLength(1);
    await provider.close();

    const saving = imapProvider({ imapUrl: dovecot.url, smtpUrl: smtp.url, username: 'saved', address: 'saved@herald.test', sentSavedByServer: true }, 'saved-password');
    await saving.send({ to: ['dana@example.com'], cc: [], subject: 'Hi', text: 'Hi Dana' });
    expect(await dovecot.messages('saved', 'Sent')).toEqual([]);
    await saving.close();
  });

  it('says a wrong SMTP password is unauthorized and that nothing was sent', async () => {
    const provider = imapProvider({ ...settings(), smtpUrl: smtp.url }, 'app-password');
    const wrongSmtp = new ImapMailProvider({ label: 'Test', settings: { ...settings(), username: 'ana' }, password: 'nope', timeoutMs: 5000, clock, ids: randomIds, outbound: localOutbound });
    const before = smtp.received.length;
    const error = await failure(wrongSmtp.send({ to: ['dana@example.com'], cc: [], subject: 'x', text: 'y' }));
    expect(error.failure).toBe('unauthorized');
    expect(error.message).toMatch(/Nothing was sent/);
    expect(smtp.received.length).toBe(before);
    await provider.close();
    await wrongSmtp.close();
  });

  // This machine's own non-loopback address: a server reached there is "elsewhere".
  const external = Object.values(networkInterfaces()).flat().find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
  itWhen(Boolean(external), 'this machine has no non-loopback IPv4 address to play a server elsewhere')('never sends a password unencrypted to a server elsewhere: no STARTTLS offered, no login, nothing sent', async () => {
    const imapProxy = await TcpFaultProxy.start(dovecot.port, '0.0.0.0');
    const smtpProxy = await TcpFaultProxy.start(smtp.port, '0.0.0.0');
    try {
      // The operator's connection (any address): encryption is still required away from this machine.
      const operator: OutboundAccess = { ...localOutbound, trust: 'operator' };
      const provider = imapProvider({ imapUrl: `imap://${external}:${imapProxy.port}`, smtpUrl: `smtp://${external}:${smtpProxy.port}`, username: 'ana', address: 'ana@herald.test' }, 'app-password', operator);
      const reading = await failure(provider.search({}));
      expect(reading.message).toMatch(/offers no encrypted connection \(TLS or STARTTLS\), so Herald did not send it the password/);
      expect(imapProxy.connections).toBe(1);
      expect(imapProxy.clientText.join('')).not.toMatch(/LOGIN|AUTHENTICATE|app-password/i);
      const before = smtp.received.length;
      const sending = await failure(provider.send({ to: ['dana@example.com'], cc: [], subject: 'x', text: 'y' }));
      expect(sending.message).toMatch(/offers no encrypted connection/);
      expect(smtp.received.length).toBe(before);
      expect(smtpProxy.connections).toBe(1);
      expect(smtpProxy.clientText.join('')).not.toMatch(/AUTH|MAIL FROM/i);
      await provider.close();
    } finally {
      await imapProxy.close();
      await smtpProxy.close();
    }
  });

  it('sends to the recipients the server accepts and names the one it refused', async () => {
    smtp.refuse('ghost@example.com');
    const provider = imapProvider(settings(), 'app-password');
    const error = await failure(provider.send({ to: ['dana@example.com', 'ghost@example.com'], cc: [], subject: 'Both', text: 'To both' }));
    expect(error.failure).toBe('rejected_recipient');
    expect(error.recipients).toEqual(['ghost@example.com']);
    expect(error.message).toMatch(/sent to dana@example.com, but the mail server refused ghost@example.com/);
    smtp.acceptAll();
    await provider.close();
  });
});
