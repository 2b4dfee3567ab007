import { createHash } from 'node:crypto';
import { MAX_CONTENT_LINE_LENGTH, unfoldContentLines } from '../shared/content-lines.js';
import { isEmailAddress } from '../shared/text-ends.js';
import { CONTACT_LIMITS } from './contact-limits.js';

/** A contact as read from, or written to, a vCard. */
export interface VcardContact {
  name: string;
  nicknames: string[];
  phones: string[];
  emails: string[];
  /** YYYY-MM-DD, or --MM-DD without a year. */
  birthday?: string | undefined;
  notes?: string | undefined;
  relationship?: string | undefined;
  uid?: string | undefined;
}

/** What a vCard file held: the contacts that parsed, what could not be read, and what was cut or refused for its length or number (line numbers, for the user). */
export interface VcardParseResult {
  contacts: VcardContact[];
  /** Lines or cards that could not be read (the first {@link MAX_PROBLEMS_LISTED}; `unread` counts them all). */
  problems: string[];
  /** Values and cards cut or refused by CONTACT_LIMITS (the first {@link MAX_PROBLEMS_LISTED}; `refused` counts them all). */
  refusals: string[];
  unread: number;
  refused: number;
  /** Cards seen (BEGIN:VCARD), counting `cardsBefore`: the next file of the same import starts from here. */
  cards: number;
}

/** The most problems or refusals listed (a broken file could have thousands); the counts say the rest. */
export const MAX_PROBLEMS_LISTED = 20;

/** RFC 6350 §3.4 text escapes: \\n, \\, \\; and \\, (older writers also use \\N). */
function unescapeText(value: string): string {
  return value.replace(/\\([\\;,n])/gi, (_match, character: string) => (character === 'n' || character === 'N' ? '\n' : character));
}

function escapeText(value: string): string {
  return value.replace(/[\\;,]/g, (character) => `\\${character}`).replace(/\r?\n/g, '\\n');
}

/** Splits on separators that are not escaped. */
function splitUnescaped(value: string, separator: ';' | ','): string[] {
  const parts: string[] = [];
  let current = '';
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index]!;
    if (character === '\\' && index + 1 < value.length) {
      current += character + value[index + 1];
      index += 1;
    } else if (character === separator) {
      parts.push(current);
      current = '';
    } else current += character;
  }
  parts.push(current);
  return parts;
}

/** BDAY forms seen in the wild: 1990-05-14, 19900514, --05-14, --0514, 1990-05-14T00:00:00Z. */
export function parseBirthday(value: string): string | undefined {
  const text = value.trim();
  if (text.length > 40) return undefined;
  let match = /^(\d{4})-?(\d{2})-?(\d{2})(?:T.*)?$/.exec(text);
  if (match) return validDay(match[1]!, match[2]!, match[3]!) ? `${match[1]}-${match[2]}-${match[3]}` : undefined;
  match = /^--(\d{2})-?(\d{2})$/.exec(text);
  if (match) return validDay('2000', match[1]!, match[2]!) ? `--${match[1]}-${match[2]}` : undefined;
  return undefined;
}

function validDay(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

/** A UID within CONTACT_LIMITS.uid as it is, a longer one as its hash (it identifies a card; nobody reads it). */
function uidOf(value: string): string | undefined {
  const uid = value.trim();
  if (!uid) return undefined;
  return uid.length <= CONTACT_LIMITS.uid ? uid : `uid-sha256:${createHash('sha256').update(uid).digest('hex')}`;
}

const count = (value: number) => value.toLocaleString('en-US');

/** A card being read. */
interface OpenCard {
  start: number;
  fn?: string;
  n?: string;
  properties: number;
  /** Set when the card is refused whole (too many properties): the rest of it is skipped. */
  refused: boolean;
  contact: VcardContact;
}

/**
 * Reads vCard 2.1, 3.0 and 4.0 (RFC 6350): folded lines, grouped properties
 * ("item1.EMAIL"), parameters, escapes, and the properties a contact here has (FN or N,
 * NICKNAME, TEL, EMAIL, BDAY, NOTE, UID, and RELATED / X-ABRELATEDNAMES' label for the
 * relationship). A card without a name, a line that is not a property, or a BEGIN without an
 * END is reported by line and skipped; the rest of the file is still read.
 *
 * Every value is held to CONTACT_LIMITS before it is kept (issue 32): a line over
 * MAX_CONTENT_LINE_LENGTH is never read whole; a name or note past its cap is cut, an address,
 * phone or nickname past its cap is refused, a card with too many properties is refused, and
 * cards past `cardsPerImport` are refused, each reported by line. Properties Herald does not
 * read (PHOTO, a long X- field) are skipped whatever their length. The work is linear in the
 * file's length; it runs in a parse worker (src/contacts/contact-import-preparation.ts).
 */
export function parseVcards(text: string, options: { cardsBefore?: number } = {}): VcardParseResult {
  const result: VcardParseResult = { contacts: [], problems: [], refusals: [], unread: 0, refused: 0, cards: options.cardsBefore ?? 0 };
  const problem = (message: string) => {
    result.unread += 1;
    if (result.problems.length < MAX_PROBLEMS_LISTED) result.problems.push(message);
  };
  const refuse = (message: string, how = 1) => {
    result.refused += how;
    if (result.refusals.length < MAX_PROBLEMS_LISTED) result.refusals.push(message);
  };
  let pastLimit = 0;
  let card: OpenCard | undefined;
  for (const { number, text: line, cut } of unfoldContentLines(text)) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      problem(`line ${number}: not a vCard property`);
      continue;
    }
    const [rawName, ...parameters] = line.slice(0, colon).split(';');
    const dot = rawName!.indexOf('.');
    const name = (dot >= 0 ? rawName!.slice(dot + 1) : rawName!).toUpperCase();
    const value = line.slice(colon + 1);
    if (name === 'BEGIN' && value.trim().toUpperCase() === 'VCARD') {
      if (card) problem(`line ${card.start}: a card without END:VCARD`);
      result.cards += 1;
      if (result.cards > CONTACT_LIMITS.cardsPerImport) {
        // Past the limit only counted: one line says where the refusing began.
        if (pastLimit === 0) refuse(`line ${number}: more than ${count(CONTACT_LIMITS.cardsPerImport)} cards in one import; this card and the rest were refused`, 0);
        pastLimit += 1;
        result.refused += 1;
        card = undefined;
        continue;
      }
      card = { start: number, properties: 0, refused: false, contact: { name: '', nicknames: [], phones: [], emails: [] } };
      continue;
    }
    if (!card) {
      if (pastLimit === 0) problem(`line ${number}: outside any BEGIN:VCARD … END:VCARD`);
      continue;
    }
    if (name === 'END' && value.trim().toUpperCase() === 'VCARD') {
      if (!card.refused) closeCard(card, result, problem, refuse);
      card = undefined;
      continue;
    }
    if (card.refused) continue;
    card.properties += 1;
    if (card.properties > CONTACT_LIMITS.propertiesPerCard) {
      refuse(`line ${card.start}: a card with more than ${count(CONTACT_LIMITS.propertiesPerCard)} properties was refused`);
      card.refused = true;
      continue;
    }
    readProperty(card, { number, name, parameters, value, cut }, problem, refuse);
  }
  if (card && !card.refused) problem(`line ${card.start}: a card without END:VCARD`);
  return result;
}

/** One property of an open card, held to CONTACT_LIMITS. */
function readProperty(
  card: OpenCard,
  property: { number: number; name: string; parameters: string[]; value: string; cut: boolean },
  problem: (message: string) => void,
  refuse: (message: string) => void,
): void {
  const { number, name, parameters, value, cut } = property;
  const tooLong = () => refuse(`line ${number}: ${name} longer than ${count(MAX_CONTENT_LINE_LENGTH)} characters was refused`);
  const isQuotedPrintable = parameters.some((parameter) => /ENCODING=QUOTED-PRINTABLE/i.test(parameter));
  const decoded = isQuotedPrintable ? decodeQuotedPrintable(value) : value;
  const contact = card.contact;
  /** A value that may be cut: cut to `cap`, and said so. */
  const cutTo = (text: string, cap: number, what: string): string => {
    if (text.length <= cap && !cut) return text;
    refuse(`line ${number}: ${what} cut to ${count(cap)} characters`);
    return text.slice(0, cap).trim();
  };
  switch (name) {
    case 'FN':
      card.fn = cutTo(unescapeText(decoded).trim(), CONTACT_LIMITS.name, 'the name');
      break;
    case 'N': {
      const [family = '', given = '', additional = '', prefix = '', suffix = ''] = splitUnescaped(decoded, ';').map((part) => unescapeText(part).trim());
      card.n = cutTo([prefix, given, additional, family, suffix].filter(Boolean).join(' '), CONTACT_LIMITS.name, 'the name');
      break;
    }
    case 'NICKNAME': {
      if (cut) return tooLong();
      for (const nickname of splitUnescaped(decoded, ',').map((part) => unescapeText(part).trim())) {
        if (nickname.length > CONTACT_LIMITS.nickname) refuse(`line ${number}: a nickname longer than ${CONTACT_LIMITS.nickname} characters was refused`);
        else if (nickname) contact.nicknames.push(nickname);
      }
      break;
    }
    case 'TEL': {
      if (cut) return tooLong();
      const phone = decoded.trim().replace(/^tel:/i, '').trim();
      if (phone.length > CONTACT_LIMITS.phone) refuse(`line ${number}: a phone number longer than ${CONTACT_LIMITS.phone} characters was refused`);
      else if (phone) contact.phones.push(phone);
      break;
    }
    case 'EMAIL': {
      if (cut) return tooLong();
      const email = decoded.trim().replace(/^mailto:/i, '').trim().toLowerCase();
      if (email.length > CONTACT_LIMITS.email) refuse(`line ${number}: an email address longer than ${CONTACT_LIMITS.email} characters was refused`);
      else if (isEmailAddress(email)) contact.emails.push(email);
      else problem(`line ${number}: "${email.slice(0, 60)}" is not an email address`);
      break;
    }
    case 'BDAY': {
      const birthday = cut ? undefined : parseBirthday(decoded);
      if (birthday) contact.birthday = birthday;
      else problem(`line ${number}: birthday "${decoded.slice(0, 30)}" is not a date`);
      break;
    }
    case 'NOTE':
      contact.notes = cutTo(unescapeText(decoded).trim(), CONTACT_LIMITS.notes, 'the note') || undefined;
      break;
    case 'UID':
      contact.uid = uidOf(decoded);
      break;
    case 'RELATED':
    case 'X-ABRELATEDNAMES':
    case 'X-RELATIONSHIP': {
      const type = parameters.find((parameter) => /^TYPE=/i.test(parameter))?.slice(5);
      contact.relationship ??= cutTo((type ?? unescapeText(decoded)).trim(), CONTACT_LIMITS.relationship, 'the relationship') || undefined;
      break;
    }
    default:
      // PHOTO, ADR, X- fields…: not read, so never refused, whatever their length.
      break;
  }
}

/** END:VCARD: the card's name settled, its lists held to `valuesPerField`, and the contact kept (or reported). */
function closeCard(card: OpenCard, result: VcardParseResult, problem: (message: string) => void, refuse: (message: string, how?: number) => void): void {
  const contact = card.contact;
  contact.name = (card.fn ?? card.n ?? '').trim();
  if (!contact.name) contact.name = contact.nicknames[0] ?? contact.emails[0] ?? '';
  if (!contact.name) {
    problem(`line ${card.start}: a card with no name, email or nickname`);
    return;
  }
  for (const field of ['nicknames', 'phones', 'emails'] as const) {
    const values = [...new Set(contact[field])];
    if (values.length > CONTACT_LIMITS.valuesPerField) {
      const extra = values.length - CONTACT_LIMITS.valuesPerField;
      refuse(`line ${card.start}: ${extra} ${field} over the ${CONTACT_LIMITS.valuesPerField} a contact keeps were refused`, extra);
    }
    contact[field] = values.slice(0, CONTACT_LIMITS.valuesPerField);
  }
  result.contacts.push(contact);
}

function decodeQuotedPrintable(value: string): string {
  const bytes: number[] = [];
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index]!;
    if (character === '=' && /^[0-9a-f]{2}$/i.test(value.slice(index + 1, index + 3))) {
      bytes.push(Number.parseInt(value.slice(index + 1, index + 3), 16));
      index += 2;
    } else bytes.push(...Buffer.from(character, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A vCard 4.0 (RFC 6350) for a contact, CRLF line ends, long lines folded at 75 octets. */
export function formatVcard(contact: VcardContact & { id: string }): string {
  const lines = ['BEGIN:VCARD', 'VERSION:4.0', `UID:${escapeText(contact.uid ?? `urn:uuid:${contact.id}`)}`, `FN:${escapeText(contact.name)}`];
  if (contact.nicknames.length > 0) lines.push(`NICKNAME:${contact.nicknames.map(escapeText).join(',')}`);
  for (const phone of contact.phones) lines.push(`TEL;VALUE=uri:tel:${phone.replace(/\s+/g, '')}`);
  for (const email of contact.emails) lines.push(`EMAIL:${escapeText(email)}`);
  if (contact.birthday) lines.push(`BDAY:${contact.birthday.startsWith('--') ? contact.birthday.replace(/^--(\d{2})-(\d{2})$/, '--$1$2') : contact.birthday.replaceAll('-', '')}`);
  // RELATED names the other person, not the relation: the relation goes where Apple and others put it.
  if (contact.relationship) lines.push(`X-RELATIONSHIP:${escapeText(contact.relationship)}`);
  if (contact.notes) lines.push(`NOTE:${escapeText(contact.notes)}`);
  lines.push('END:VCARD');
  return lines.map(fold).join('\r\n') + '\r\n';
}

/** Folds a line at 75 octets without splitting a UTF-8 character. */
function fold(line: string): string {
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  for (const character of line) {
    const size = Buffer.byteLength(character);
    if (octets + size > (parts.length === 0 ? 75 : 74)) {
      parts.push(current);
      current = '';
      octets = 0;
    }
    current += character;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}
