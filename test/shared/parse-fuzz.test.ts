import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { CalendarEvent } from '../../src/calendar/calendar-event.js';
import type { PreparedImport } from '../../src/contacts/contact-import-preparation.js';
import { CONTACT_LIMITS } from '../../src/contacts/contact-limits.js';
import type { ReadMail } from '../../src/email/mail-reading.js';
import type { MailMessage } from '../../src/email/mail-message.js';
import { MAIL_TEXT_CAP } from '../../src/email/mail-text.js';
import { PARSE_BUDGET_MS, ParseWorkers } from '../../src/shared/parse-workers.js';

/**
 * How many generated files of each kind: a few hundred in `npm test`, more in `npm run fuzz`
 * (FUZZ_RUNS=10000); FUZZ_RUNS overrides either.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
/** The generator's seed: random unless FUZZ_SEED is set; printed first, so `FUZZ_SEED=<seed> npm run fuzz` replays a failure. */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/**
 * The largest counts generated (cards in a file, properties in a card, nesting depth, header
 * fields): past every limit under `npm run fuzz`; a tenth of that in `npm test`, where the
 * limits themselves are tested exactly (test/contacts/contact-import-preparation.test.ts) and
 * a few hundred runs must stay quick.
 */
const HUGE = RUNS > 1_000 ? 25_000 : 2_500;

const CONTACTS = new URL('../../src/contacts/contact-import-preparation.ts', import.meta.url);
const ICS = new URL('../../src/calendar/ics-reading.ts', import.meta.url);
const MAIL = new URL('../../src/email/mail-reading.ts', import.meta.url);

/** Text of every kind: plain, any Unicode, raw bytes read as Latin-1, and the characters these formats give meaning to. */
const text = (maxLength = 60) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(':', ';', ',', '\\', '=', '\r\n ', '\n', '\r', '\t', '"', '@', '.', '<', '>', '=?', '?=', '\u0000', '\uFEFF', 'é', '=C3=A9', '=\r\n'), { maxLength }).map((parts) => parts.join('')) },
  );

/** A value long enough to cross every cap, built the cheap way (repeated). */
const long = fc.tuple(fc.constantFrom('a.', 'a', '5', ' ', '\\,', '=41', '<b>', 'x@y.'), fc.integer({ min: 50, max: 15_000 })).map(([unit, count]) => unit.repeat(count));

const value = fc.oneof({ weight: 6, arbitrary: text() }, { weight: 1, arbitrary: long }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 48_000 }).map((count) => `a@${'a.'.repeat(count)}@`) });

/** Folds a line at random places (a space after each break), as a careless writer might. */
const folded = (line: string, at: number[]) => {
  let out = line;
  for (const position of at.sort((left, right) => right - left)) if (position < out.length) out = `${out.slice(0, position)}\r\n ${out.slice(position)}`;
  return out;
};

// ---- vCards ----------------------------------------------------------------------------------

const vcardName = fc.constantFrom('FN', 'N', 'NICKNAME', 'TEL', 'EMAIL', 'BDAY', 'NOTE', 'UID', 'RELATED', 'X-ABRELATEDNAMES', 'X-RELATIONSHIP', 'PHOTO', 'ADR', 'X-CUSTOM', 'item1.EMAIL', 'item2.TEL', 'VERSION', 'BEGIN', 'END', 'fn', '');
const vcardParameter = fc.constantFrom('', ';TYPE=CELL', ';TYPE=INTERNET;TYPE=HOME', ';ENCODING=QUOTED-PRINTABLE', ';CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE', ';ENCODING=b', ';VALUE=uri', ';;;', ';TYPE=');
const vcardLine = fc.tuple(vcardName, vcardParameter, fc.boolean(), value, fc.array(fc.nat({ max: 200 }), { maxLength: 3 })).map(([name, parameter, colon, body, folds]) => folded(`${name}${parameter}${colon ? ':' : ''}${body}`, folds));
const vcard = fc.tuple(fc.array(vcardLine, { maxLength: 25 }), fc.boolean(), fc.boolean()).map(([lines, begin, end]) => [...(begin ? ['BEGIN:VCARD', 'VERSION:3.0'] : []), ...lines, ...(end ? ['END:VCARD'] : [])].join('\r\n'));
/** Short lines and cards, for the files that repeat them thousands of times. */
const shortLine = fc.tuple(vcardName, vcardParameter, text(12)).map(([name, parameter, body]) => `${name}${parameter}:${body}`);
const shortCard = fc.array(shortLine, { maxLength: 3 }).map((lines) => ['BEGIN:VCARD', 'VERSION:3.0', ...lines, 'END:VCARD'].join('\r\n'));
const vcardFile = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.array(vcard, { minLength: 1, maxLength: 8 }), fc.constantFrom('\r\n', '\n', '\r'), fc.boolean()).map(([cards, eol, bom]) => `${bom ? '\uFEFF' : ''}${cards.join('\r\n').replaceAll('\r\n', eol)}`) },
  // Huge counts: one card repeated past the cards an import reads, or a card of thousands of properties.
  { weight: 1, arbitrary: fc.tuple(shortCard, fc.integer({ min: 100, max: HUGE })).map(([card, count]) => `${card}\r\n`.repeat(count)) },
  { weight: 1, arbitrary: fc.tuple(shortLine, fc.integer({ min: 100, max: Math.floor(HUGE / 5) })).map(([line, count]) => `BEGIN:VCARD\r\nFN:Many\r\n${`${line}\r\n`.repeat(count)}END:VCARD\r\n`) },
  // Nested and unbalanced.
  { weight: 1, arbitrary: fc.integer({ min: 1, max: Math.floor(HUGE / 10) }).map((depth) => `${'BEGIN:VCARD\r\nFN:x\r\n'.repeat(depth)}${'END:VCARD\r\n'.repeat(Math.floor(depth / 2))}`) },
);

// ---- iCalendar ------------------------------------------------------------------------------

const dateValue = fc.oneof(
  fc.constantFrom('20260310T090000', '20260310T090000Z', '20260310', '19000101T000000', '99991231T235959Z', '2026-03-10', '', 'T', '20260230T250000'),
  fc.tuple(fc.integer({ min: 1900, max: 2100 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), fc.boolean()).map(([year, month, day, timed]) => `${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}${timed ? 'T101500' : ''}`),
);
const rrule = fc.oneof(
  fc.tuple(fc.constantFrom('SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY', 'NEVER'), fc.option(fc.integer({ min: 0, max: 100_000 })), fc.option(fc.integer({ min: 0, max: 1_000 })), fc.constantFrom('', ';BYDAY=MO,TU', ';BYDAY=-1FR', ';BYMONTHDAY=31;BYMONTH=2', ';BYSETPOS=-1;BYDAY=MO', ';BYWEEKNO=53', ';BYYEARDAY=366', ';BYHOUR=25', ';WKST=XX')).map(
    ([freq, count, interval, by]) => `FREQ=${freq}${count === null ? '' : `;COUNT=${count}`}${interval === null ? '' : `;INTERVAL=${interval}`}${by}`,
  ),
  text(40),
);
// Mostly properties (odd values included), sometimes a line of anything: one unreadable line
// makes ical.js refuse the whole object, and the fuzz should reach the expansion too.
const eventLine = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('DTSTART', 'DTEND', 'DTSTART;VALUE=DATE', 'DTSTART;TZID=Europe/Paris', 'DTSTART;TZID=Not/AZone', 'DTEND;TZID=America/New_York', 'RECURRENCE-ID', 'EXDATE', 'RDATE'), dateValue).map(([name, date]) => `${name}:${date}`) },
  { weight: 3, arbitrary: rrule.map((rule) => `RRULE:${rule}`) },
  { weight: 3, arbitrary: fc.constantFrom('DURATION:PT1H', 'DURATION:P1000000D', 'DURATION:-PT1H', 'DURATION:junk', 'UID:fuzz-1', 'SEQUENCE:-5', 'STATUS:CANCELLED', 'ATTENDEE:mailto:a@b.example') },
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom('SUMMARY', 'DESCRIPTION', 'LOCATION', 'ATTACH;ENCODING=BASE64;VALUE=BINARY', 'X-JUNK', 'summary'), value).map(([name, body]) => `${name}:${body}`) },
  { weight: 1, arbitrary: text(80) },
);
const vevent = fc.tuple(fc.array(eventLine, { maxLength: 14 }), fc.nat({ max: 3 })).map(([lines, alarms]) => ['BEGIN:VEVENT', 'UID:fuzz-1', 'DTSTART:20260310T090000Z', ...lines, ...Array.from({ length: alarms }, () => 'BEGIN:VALARM\r\nTRIGGER:-PT15M\r\nACTION:DISPLAY\r\nEND:VALARM'), 'END:VEVENT'].join('\r\n'));
const icsObject = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.array(vevent, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([events, zone]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', ...(zone ? ['BEGIN:VTIMEZONE', 'TZID:Europe/Paris', 'BEGIN:STANDARD', 'DTSTART:19701025T030000', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'END:STANDARD', 'END:VTIMEZONE'] : []), ...events, 'END:VCALENDAR'].join('\r\n')) },
  // Deep nesting, and many events in one object.
  { weight: 1, arbitrary: fc.integer({ min: 10, max: Math.floor(HUGE / 8) }).map((depth) => `BEGIN:VCALENDAR\r\n${'BEGIN:X-NEST\r\n'.repeat(depth)}${'END:X-NEST\r\n'.repeat(depth)}BEGIN:VEVENT\r\nUID:n\r\nDTSTART:20260310T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR`) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: Math.floor(HUGE / 10) }).map((count) => `BEGIN:VCALENDAR\r\n${`BEGIN:VEVENT\r\nUID:many\r\nDTSTART:20260310T090000Z\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n`.repeat(count)}END:VCALENDAR`) },
  text(200),
);

// ---- MIME -----------------------------------------------------------------------------------

const headerValue = fc.oneof(
  { weight: 4, arbitrary: text(80) },
  fc.constantFrom('=?utf-8?B?w6l0w6k=?=', '=?iso-8859-1?Q?caf=E9?=', '=?bogus?X?junk?=', '=?utf-8?Q?' + '=C3'.repeat(500) + '?=', '"Dana, K" <dana@example.com>, (comment) bob@example.com', 'undisclosed-recipients:;', '<a@b>'.repeat(2_000)),
  long,
);
const header = fc.tuple(fc.constantFrom('From', 'To', 'Cc', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'References', 'List-Unsubscribe', 'Content-Type', 'X-Junk', 'from', ' Subject', 'No-Colon'), headerValue, fc.array(fc.nat({ max: 300 }), { maxLength: 4 })).map(([name, body, folds]) => folded(`${name}: ${body}`, folds));
const headerBlock = fc.oneof(
  { weight: 6, arbitrary: fc.array(header, { maxLength: 20 }).map((lines) => `${lines.join('\r\n')}\r\n\r\n`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('X-Junk: a', 'Received: from x by y', 'To: a@b.example,', ' folded'), fc.integer({ min: 100, max: HUGE })).map(([line, count]) => `Subject: many\r\n${`${line}\r\n`.repeat(count)}\r\n`) },
);
const html = fc.oneof(
  text(300),
  fc.integer({ min: 1, max: Math.floor(HUGE / 5) }).map((depth) => `${'<div style="color:#fff;background:#fff">'.repeat(depth)}hidden?${'</div>'.repeat(depth)}`),
  fc.integer({ min: 1, max: Math.floor(HUGE / 10) }).map((depth) => `<table>${'<tr><td><table>'.repeat(depth)}x</table>`),
  fc.tuple(fc.integer({ min: 1, max: 3_000 }), text(20)).map(([count, word]) => `<style>${'.a'.repeat(count)}{display:none}</style><p class="a">${word}</p>`),
  fc.integer({ min: 1, max: HUGE }).map((count) => `<p style="${'opacity:0;'.repeat(count)}">x</p>`),
  long.map((body) => `<p>${body}</p>`),
);
const body = fc.tuple(fc.constantFrom('text/plain', 'text/html', 'TEXT/HTML', 'text/x-junk'), fc.constantFrom(undefined, 'utf-8', 'iso-8859-1', 'shift_jis', 'windows-1255', 'bogus-charset'), fc.constantFrom(undefined, 'base64', 'quoted-printable', '7bit', '8bit', 'x-uuencode', 'junk'), fc.oneof(html, text(500))).map(
  ([type, charset, encoding, content]) => {
    const raw = encoding === 'base64' ? Buffer.from(content).toString('base64').replace(/.{76}/g, '$&\r\n') : content;
    return { node: { part: '1', type, ...(charset ? { parameters: { charset } } : {}), ...(encoding ? { encoding } : {}), size: raw.length }, bytes: new Uint8Array(Buffer.from(raw, 'latin1')) };
  },
);
const imapMail = fc.tuple(headerBlock, fc.option(body, { nil: undefined })).map(([headers, part]) => ({ headers: new Uint8Array(Buffer.from(headers, 'latin1')), part }));

const gmailPart: fc.Memo<Record<string, unknown>> = fc.memo((depth) =>
  fc.record({
    mimeType: fc.constantFrom('text/plain', 'text/html', 'multipart/alternative', 'multipart/mixed', 'message/rfc822', 'application/pdf', ''),
    filename: fc.constantFrom('', 'a.pdf', '=?utf-8?B?w6k=?='),
    headers: fc.array(fc.record({ name: fc.constantFrom('Content-Type', 'Content-Disposition', 'From', 'Subject', 'To', 'List-Unsubscribe'), value: headerValue }), { maxLength: 4 }),
    body: fc.oneof(fc.constant({ size: 0 }), fc.oneof(html, text(200)).map((content) => ({ size: content.length, data: Buffer.from(content).toString('base64url') })), fc.constant({ size: 10, attachmentId: 'att' })),
    parts: depth > 1 ? fc.array(gmailPart(depth - 1), { maxLength: 3 }) : fc.constant([]),
  }),
);
const gmailMessage = fc.oneof(
  { weight: 6, arbitrary: fc.record({ id: fc.constant('18c0ffee00000001'), internalDate: fc.constantFrom('1767225600000', 'junk', undefined), labelIds: fc.constant(['INBOX', 'UNREAD']), payload: gmailPart(4) }) },
  // Deep nesting: a part inside a part, hundreds deep.
  { weight: 1, arbitrary: fc.integer({ min: 10, max: Math.floor(HUGE / 60) }).map((depth) => {
    let payload: Record<string, unknown> = { mimeType: 'text/plain', body: { size: 1, data: Buffer.from('deep').toString('base64url') } };
    for (let level = 0; level < depth; level += 1) payload = { mimeType: 'multipart/mixed', parts: [payload] };
    return { id: '18c0ffee00000002', payload };
  }) },
);

/**
 * The parsers of what users, mailboxes and address books send, fuzzed through the parse workers
 * they run in (issue 32): generated vCards, iCalendar objects and MIME messages, valid-ish and
 * hostile (long lines, deep nesting, odd encodings, huge counts). Each is parsed within its time
 * budget (the production one) and without an error escaping; what comes back is within the
 * limits (contacts' fields, mail text's cap).
 */
describe('parse fuzz', () => {
  const workers = new ParseWorkers({ budgetMs: PARSE_BUDGET_MS });
  afterAll(async () => {
    await workers.close();
  });
  console.log(`parse fuzz: ${RUNS} runs of each, seed ${SEED} (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npx vitest run test/shared/parse-fuzz.test.ts)`);

  it(`reads ${RUNS} generated vCard files within the budget, every contact within CONTACT_LIMITS`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(vcardFile, { minLength: 1, maxLength: 3 }), async (files) => {
        const prepared = await workers.run<PreparedImport>(CONTACTS, 'prepareVcardImport', [files]);
        expect(prepared.contacts.length).toBeLessThanOrEqual(CONTACT_LIMITS.cardsPerImport);
        expect(new Set(prepared.contacts.map((contact) => contact.uid)).size).toBe(prepared.contacts.length);
        for (const contact of prepared.contacts) {
          expect(contact.name.length).toBeGreaterThan(0);
          expect(contact.name.length).toBeLessThanOrEqual(CONTACT_LIMITS.name);
          expect(contact.notes?.length ?? 0).toBeLessThanOrEqual(CONTACT_LIMITS.notes);
          expect(contact.relationship?.length ?? 0).toBeLessThanOrEqual(CONTACT_LIMITS.relationship);
          expect(contact.uid.length).toBeLessThanOrEqual(CONTACT_LIMITS.uid + 20);
          for (const [values, cap] of [[contact.nicknames, CONTACT_LIMITS.nickname], [contact.phones, CONTACT_LIMITS.phone], [contact.emails, CONTACT_LIMITS.email]] as const) {
            expect(values.length).toBeLessThanOrEqual(CONTACT_LIMITS.valuesPerField);
            for (const one of values) expect(one.length).toBeLessThanOrEqual(cap);
          }
        }
        expect(prepared.problems.length).toBeLessThanOrEqual(20);
        expect(prepared.refusals.length).toBeLessThanOrEqual(20);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 300_000);

  it(`reads ${RUNS} generated iCalendar objects within the budget: events, or a CalendarError's failure, never an escaping error`, async () => {
    const range = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') };
    let read = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(icsObject, { minLength: 1, maxLength: 3 }), fc.constantFrom('UTC', 'America/New_York', 'Asia/Jerusalem'), async (objects, zone) => {
        const answer = await workers.run<{ ok: true; value: CalendarEvent[] } | { ok: false; failure: string; message: string }>(ICS, 'readEventsInObjects', [objects.map((ics, index) => ({ ics, key: `k${index}.ics` })), range, zone]);
        if (answer.ok) {
          read += 1;
          for (const event of answer.value) expect(event.startsAt).toBeInstanceOf(Date);
        } else expect(answer.failure).toBe('invalid');
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // Enough generated calendars are readable: the fuzz reaches the expansion, not only the parser's refusals.
    // (About one in five batches of one to three objects is read whole; one bad line refuses its batch.)
    expect(read).toBeGreaterThan(RUNS / 12);
  }, 300_000);

  it(`reads ${RUNS} generated IMAP messages (header block and text part) within the budget, the text within its cap`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(imapMail, { minLength: 1, maxLength: 3 }), async (mails) => {
        const read = await workers.run<ReadMail[]>(MAIL, 'readImapMails', [mails]);
        expect(read).toHaveLength(mails.length);
        for (const mail of read) expect(mail.text.length).toBeLessThanOrEqual(MAIL_TEXT_CAP + 1);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 300_000);

  it(`reads ${RUNS} generated Gmail messages (nested parts, odd headers) within the budget, the text within its cap`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(gmailMessage, { minLength: 1, maxLength: 3 }), async (messages) => {
        const read = await workers.run<MailMessage[]>(MAIL, 'readGmailMessages', [messages]);
        expect(read).toHaveLength(messages.length);
        for (const mail of read) expect(mail.text.length).toBeLessThanOrEqual(MAIL_TEXT_CAP + 1);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 300_000);
});
