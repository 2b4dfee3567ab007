import { isEmailAddress } from '../shared/text-ends.js';
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

/** What a vCard file held: the contacts that parsed, and what could not be read (line numbers, for the user). */
export interface VcardParseResult {
  contacts: VcardContact[];
  problems: string[];
}

/** The most problems listed (a broken file could have thousands); the count says the rest. */
const MAX_PROBLEMS_LISTED = 20;

/** RFC 6350 §3.4 text escapes: \\n, \\, \\; and \\, (older writers also use \\N). */
function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_match, character: string) => (character === 'n' || character === 'N' ? '\n' : character));
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

/**
 * Reads vCard 2.1, 3.0 and 4.0 (RFC 6350): folded lines, grouped properties
 * ("item1.EMAIL"), parameters, escapes, and the properties a contact here has (FN or N,
 * NICKNAME, TEL, EMAIL, BDAY, NOTE, UID, and RELATED / X-ABRELATEDNAMES' label for the
 * relationship). A card without a name, a line that is not a property, or a BEGIN without an
 * END is reported by line and skipped; the rest of the file is still read.
 */
export function parseVcards(text: string): VcardParseResult {
  const contacts: VcardContact[] = [];
  const problems: string[] = [];
  let problemCount = 0;
  const problem = (message: string) => {
    problemCount += 1;
    if (problems.length < MAX_PROBLEMS_LISTED) problems.push(message);
  };
  // Unfold: a line starting with a space or tab continues the previous one (RFC 6350 §3.2).
  const physical = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const lines: Array<{ number: number; text: string }> = [];
  for (const [index, line] of physical.entries()) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && lines.length > 0) lines[lines.length - 1]!.text += line.slice(1);
    else lines.push({ number: index + 1, text: line });
  }
  let card: { start: number; fn?: string; n?: string; contact: VcardContact } | undefined;
  for (const { number, text: line } of lines) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      problem(`line ${number}: not a vCard property`);
      continue;
    }
    const [rawName, ...parameters] = line.slice(0, colon).split(';');
    const name = rawName!.replace(/^[^.]*\./, '').toUpperCase();
    const value = line.slice(colon + 1);
    if (name === 'BEGIN' && value.trim().toUpperCase() === 'VCARD') {
      if (card) problem(`line ${card.start}: a card without END:VCARD`);
      card = { start: number, contact: { name: '', nicknames: [], phones: [], emails: [] } };
      continue;
    }
    if (!card) {
      problem(`line ${number}: outside any BEGIN:VCARD … END:VCARD`);
      continue;
    }
    if (name === 'END' && value.trim().toUpperCase() === 'VCARD') {
      const contact = card.contact;
      contact.name = (card.fn ?? card.n ?? '').trim();
      if (!contact.name) contact.name = contact.nicknames[0] ?? contact.emails[0] ?? '';
      if (contact.name) contacts.push(contact);
      else problem(`line ${card.start}: a card with no name, email or nickname`);
      card = undefined;
      continue;
    }
    const isQuotedPrintable = parameters.some((parameter) => /ENCODING=QUOTED-PRINTABLE/i.test(parameter));
    const decoded = isQuotedPrintable ? decodeQuotedPrintable(value) : value;
    const contact = card.contact;
    switch (name) {
      case 'FN':
        card.fn = unescapeText(decoded).trim();
        break;
      case 'N': {
        const [family = '', given = '', additional = '', prefix = '', suffix = ''] = splitUnescaped(decoded, ';').map((part) => unescapeText(part).trim());
        card.n = [prefix, given, additional, family, suffix].filter(Boolean).join(' ');
        break;
      }
      case 'NICKNAME':
        contact.nicknames.push(...splitUnescaped(decoded, ',').map((part) => unescapeText(part).trim()).filter(Boolean));
        break;
      case 'TEL': {
        const phone = decoded.replace(/^tel:/i, '').trim();
        if (phone) contact.phones.push(phone);
        break;
      }
      case 'EMAIL': {
        const email = decoded.replace(/^mailto:/i, '').trim().toLowerCase();
        if (isEmailAddress(email)) contact.emails.push(email);
        else problem(`line ${number}: "${email.slice(0, 60)}" is not an email address`);
        break;
      }
      case 'BDAY': {
        const birthday = parseBirthday(decoded);
        if (birthday) contact.birthday = birthday;
        else problem(`line ${number}: birthday "${decoded.slice(0, 30)}" is not a date`);
        break;
      }
      case 'NOTE':
        contact.notes = unescapeText(decoded).trim().slice(0, 2000) || undefined;
        break;
      case 'UID':
        contact.uid = decoded.trim().slice(0, 200) || undefined;
        break;
      case 'RELATED':
      case 'X-ABRELATEDNAMES':
      case 'X-RELATIONSHIP': {
        const type = parameters.find((parameter) => /^TYPE=/i.test(parameter))?.slice(5);
        contact.relationship ??= (type ?? unescapeText(decoded)).trim().slice(0, 80) || undefined;
        break;
      }
      default:
        break;
    }
  }
  if (card) problem(`line ${card.start}: a card without END:VCARD`);
  if (problemCount > problems.length) problems.push(`…and ${problemCount - problems.length} more`);
  return { contacts, problems };
}

function decodeQuotedPrintable(value: string): string {
  const bytes: number[] = [];
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index]!;
    if (character === '=' && /^[0-9A-Fa-f]{2}$/.test(value.slice(index + 1, index + 3))) {
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
