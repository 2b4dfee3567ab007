/**
 * SMS encoding. A text whose every character is in the GSM 03.38 alphabet travels as GSM-7:
 * 160 characters in one segment, 153 per segment when split. One character outside it
 * (a curly quote, an en dash, an ellipsis) makes the whole text UCS-2: 70 characters, 67 per
 * segment. So a 150-character reply with one ’ costs three segments instead of one.
 */

/** GSM 03.38 basic character set (one septet each). */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: two septets each (escape + character). */
const GSM_EXTENDED = '^{}\\[~]|€\f';

const BASIC = new Set(GSM_BASIC);
const EXTENDED = new Set(GSM_EXTENDED);

/** Typographic punctuation models like to write, and its plain equivalent in GSM-7. */
const PLAIN_PUNCTUATION: Array<[RegExp, string]> = [
  [/[\u2018\u2019\u201A\u201B\u2032\u02BC]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, '-'],
  [/\u2026/g, '...'],
  [/[\u00A0\u2007\u202F\u2009\u200A\u2002\u2003]/g, ' '],
  [/[\u2022\u2023\u2043]/g, '-'],
  // Zero-width characters; a joiner in a class would read as joining its neighbours.
  // eslint-disable-next-line no-misleading-character-class -- each is removed on its own, none joins anything here
  [/[\u200B\u200C\u200D\u2060\uFEFF]/g, ''],
];

/**
 * Replaces typographic punctuation (curly quotes, dashes, ellipsis, special spaces, bullets)
 * with its plain GSM-7 form, so that punctuation alone never pushes an SMS into UCS-2.
 * The outbox uses the result only when it is then all GSM-7 (see outboundBodies).
 */
export function plainSmsPunctuation(text: string): string {
  return PLAIN_PUNCTUATION.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text);
}

/** Whether `text` can travel as GSM-7. */
export function isGsm7(text: string): boolean {
  for (const character of text) if (!BASIC.has(character) && !EXTENDED.has(character)) return false;
  return true;
}

/** Septets (GSM-7) or UTF-16 code units (UCS-2) a text takes. */
function units(text: string, gsm: boolean): number {
  if (!gsm) return text.length;
  let count = 0;
  for (const character of text) count += EXTENDED.has(character) ? 2 : 1;
  return count;
}

/** How many SMS segments `text` takes as one message. */
export function smsSegments(text: string): number {
  if (text === '') return 0;
  const gsm = isGsm7(text);
  const length = units(text, gsm);
  const single = gsm ? 160 : 70;
  const multi = gsm ? 153 : 67;
  return length <= single ? 1 : Math.ceil(length / multi);
}

/**
 * Caps a reply at `maxSegments` SMS segments in all (each 1600-character part is its own
 * message, but the carrier bills segments). Over the cap, the text is cut at a word
 * boundary and ends with "...", so the reader knows there was more.
 */
export function capSmsSegments(text: string, maxSegments: number): string {
  if (smsSegments(text) <= maxSegments) return text;
  const gsm = isGsm7(text);
  const budget = maxSegments * (gsm ? 153 : 67) - 3;
  const characters = [...text];
  let used = 0;
  let end = 0;
  for (const character of characters) {
    const cost = gsm ? (EXTENDED.has(character) ? 2 : 1) : character.length;
    if (used + cost > budget) break;
    used += cost;
    end += 1;
  }
  let cut = characters.slice(0, end).join('');
  const boundary = cut.search(/\s\S*$/);
  if (boundary > cut.length * 0.8) cut = cut.slice(0, boundary);
  return `${cut.trimEnd()}...`;
}
