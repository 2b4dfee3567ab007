import type { MessageStructureObject } from 'imapflow';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { MailAddress } from './mail-message.js';
import { trimEndOf } from '../shared/text-ends.js';

/** The parts of a message worth reading, found from its BODYSTRUCTURE without downloading it. */
export interface TextParts {
  /** The first inline text/plain part. */
  plain?: MessageStructureObject | undefined;
  /** The first inline text/html part. */
  html?: MessageStructureObject | undefined;
  attachments: { filename?: string | undefined; contentType: string; size: number }[];
}

/**
 * Walks a BODYSTRUCTURE: the readable text parts (plain preferred, HTML otherwise) and the
 * attachments, by name, type and size only. A forwarded message (message/rfc822) counts as
 * an attachment; its insides are never read.
 */
export function textPartsOf(structure: MessageStructureObject | undefined): TextParts {
  const found: TextParts = { attachments: [] };
  const visit = (node: MessageStructureObject, isRoot: boolean) => {
    const type = node.type.toLowerCase();
    if (type.startsWith('multipart/')) {
      for (const child of node.childNodes ?? []) visit(child, false);
      return;
    }
    const filename = node.dispositionParameters?.filename ?? node.parameters?.name;
    const attached = node.disposition?.toLowerCase() === 'attachment' || (filename !== undefined && !type.startsWith('text/'));
    if (!attached && type === 'text/plain' && !found.plain) found.plain = { ...node, part: node.part ?? (isRoot ? '1' : node.part) };
    else if (!attached && type === 'text/html' && !found.html) found.html = { ...node, part: node.part ?? (isRoot ? '1' : node.part) };
    else if (attached || !type.startsWith('text/')) {
      // Inline images of an HTML mail are part of its look, not attachments a person would name.
      if (!attached && type.startsWith('image/') && node.id) return;
      const encoded = node.size ?? 0;
      found.attachments.push({ filename, contentType: type, size: node.encoding?.toLowerCase() === 'base64' ? Math.floor((encoded * 3) / 4) : encoded });
    }
  };
  if (structure) visit(structure, true);
  return found;
}

/** The part a reader would see: the plain-text one when there is one, else the HTML one. */
export function preferredPart(parts: TextParts): MessageStructureObject | undefined {
  return parts.plain ?? parts.html;
}

/**
 * Reads a message from its raw header block and one raw text part, without the rest of the
 * message: the part is given its own Content-Type and Content-Transfer-Encoding (from the
 * BODYSTRUCTURE) in place of the message's, and mailparser decodes the lot: RFC 2047
 * encoded words, any charset (ISO-8859-x, windows-125x, Shift_JIS…), base64 and
 * quoted-printable. A header in raw 8-bit that is not UTF-8 is read as Latin-1 rather than
 * as broken characters.
 */
export async function parseHeadersAndPart(headers: Buffer, part?: { node: MessageStructureObject; bytes: Buffer }): Promise<ParsedMail> {
  const kept = withoutContentHeaders(fixRawHeaderBytes(headers));
  const charset = part?.node.parameters?.charset;
  const format = part?.node.parameters?.format;
  const contentType = part ? `Content-Type: ${part.node.type}${charset ? `; charset="${charset}"` : ''}${format ? `; format=${format}` : ''}\r\n` : 'Content-Type: text/plain; charset=utf-8\r\n';
  const encoding = part?.node.encoding ? `Content-Transfer-Encoding: ${part.node.encoding}\r\n` : '';
  const synthetic = Buffer.concat([kept, Buffer.from(`MIME-Version: 1.0\r\n${contentType}${encoding}\r\n`), part?.bytes ?? Buffer.alloc(0)]);
  return simpleParser(synthetic, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, keepCidLinks: false });
}

/**
 * The longest header field Herald reads, unfolded, in characters (RFC 5322 allows 998 per
 * physical line; a long References or a DKIM signature stays well under this). A longer field
 * is left out before parsing, and a header block is read up to {@link MAX_HEADER_BLOCK}: a
 * mailbox controls both, and neither is ever stored (issue 32).
 */
export const MAX_HEADER_LENGTH = 16_000;

/** The most of a message's header block read, in characters; the fields past it are left out. */
const MAX_HEADER_BLOCK = 256 * 1024;

/**
 * Removes the message-level Content-* and MIME-Version headers (with their folded lines) and the
 * blank line that ends the block; leaves out any field longer than {@link MAX_HEADER_LENGTH} and
 * everything past {@link MAX_HEADER_BLOCK}.
 */
function withoutContentHeaders(headers: Buffer): Buffer {
  const text = headers.toString('latin1', 0, Math.min(headers.length, MAX_HEADER_BLOCK));
  const lines = trimEndOf(text, '\r\n').split(/\r?\n/);
  const kept: string[] = [];
  let field: string[] = [];
  let length = 0;
  const flush = () => {
    if (field.length > 0 && length <= MAX_HEADER_LENGTH && !/^(?:content-type|content-transfer-encoding|mime-version|content-disposition):/i.test(field[0]!)) kept.push(...field);
    field = [];
    length = 0;
  };
  for (const line of lines) {
    const continues = line.startsWith(' ') || line.startsWith('\t');
    if (!continues) flush();
    length += line.length;
    if (length <= MAX_HEADER_LENGTH) field.push(line);
  }
  flush();
  return Buffer.from(kept.map((line) => `${line}\r\n`).join(''), 'latin1');
}

/**
 * Raw 8-bit header bytes: UTF-8 when they decode as UTF-8 (what RFC 6532 allows), else
 * Latin-1 (what old mailers send), re-encoded as UTF-8 so the parser reads characters, not
 * replacement marks.
 */
function fixRawHeaderBytes(headers: Buffer): Buffer {
  if (!headers.some((byte) => byte > 0x7f)) return headers;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    decoder.decode(headers);
    return headers;
  } catch {
    return Buffer.from(headers.toString('latin1'), 'utf8');
  }
}

/** mailparser's addresses as plain {name, address} pairs (groups flattened). */
export function addressesOf(field: AddressObject | AddressObject[] | undefined): MailAddress[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  const found: MailAddress[] = [];
  const add = (entries: AddressObject['value']) => {
    for (const entry of entries) {
      if (entry.group) add(entry.group);
      else if (entry.address) found.push({ ...(entry.name ? { name: entry.name } : {}), address: entry.address });
    }
  };
  for (const object of objects) add(object.value);
  return found;
}

/** A message's References, as a list of ids with angle brackets. */
export function referencesOf(parsed: ParsedMail): string[] {
  const references = parsed.references;
  if (!references) return [];
  return (Array.isArray(references) ? references : references.split(/\s+/)).filter(Boolean);
}
