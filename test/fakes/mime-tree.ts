import { decodeBytes } from '../../src/email/mime-words.js';

/**
 * A small RFC 2045/2046 reader for the fakes: a raw message as a tree of parts, each with its
 * headers (unfolded, undecoded) and, for leaves, the body bytes after the transfer encoding is
 * undone (the charset is left alone, as Gmail leaves it). Enough MIME to stand in for a real
 * server; not a general parser.
 */
export interface MimeNode {
  headers: Array<{ name: string; value: string }>;
  /** Lower-cased "type/subtype"; text/plain when absent. */
  contentType: string;
  parameters: Record<string, string>;
  disposition: string | undefined;
  filename: string | undefined;
  /** Transfer-decoded bytes (leaves only). */
  body: Buffer;
  children: MimeNode[];
}

/** Parses a raw RFC 822 message. */
export function parseMime(raw: Buffer | string): MimeNode {
  const text = Buffer.isBuffer(raw) ? raw.toString('latin1') : Buffer.from(raw, 'utf8').toString('latin1');
  return parseNode(text, 'text/plain');
}

/** The first header with this name, its bytes read as UTF-8. */
export function headerOf(node: MimeNode, name: string): string | undefined {
  return node.headers.find((header) => header.name.toLowerCase() === name.toLowerCase())?.value;
}

/** Every leaf, depth first. */
export function leaves(node: MimeNode): MimeNode[] {
  return node.children.length > 0 ? node.children.flatMap(leaves) : [node];
}

function parseNode(text: string, defaultType: string): MimeNode {
  const split = /\r?\n\r?\n/.exec(text);
  const head = split ? text.slice(0, split.index) : text;
  const bodyText = split ? text.slice(split.index + split[0].length) : '';
  const headers = head
    .split(/\r?\n(?![ \t])/)
    .filter((line) => line.includes(':'))
    .map((line) => {
      const colon = line.indexOf(':');
      return { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).replace(/\r?\n[ \t]+/g, ' ').trim() };
    });
  const find = (name: string) => headers.find((header) => header.name.toLowerCase() === name)?.value;
  const [contentType, parameters] = parseStructured(find('content-type') ?? defaultType);
  // Raw 8-bit header bytes: UTF-8 when they are valid UTF-8, else the part's charset (as Gmail guesses).
  for (const header of headers) header.value = eightBitHeader(Buffer.from(header.value, 'latin1'), parameters.charset);
  const [disposition, dispositionParameters] = parseStructured(find('content-disposition') ?? '');
  const node: MimeNode = {
    headers,
    contentType: contentType || defaultType,
    parameters,
    disposition: disposition || undefined,
    filename: dispositionParameters.filename ?? parameters.name,
    body: Buffer.alloc(0),
    children: [],
  };
  if (node.contentType.startsWith('multipart/') && parameters.boundary) {
    const childType = node.contentType === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
    node.children = splitMultipart(bodyText, parameters.boundary).map((part) => parseNode(part, childType));
    return node;
  }
  node.body = transferDecode(bodyText, (find('content-transfer-encoding') ?? '7bit').trim().toLowerCase());
  return node;
}

function eightBitHeader(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return decodeBytes(bytes, charset ?? 'windows-1252');
  }
}

function splitMultipart(body: string, boundary: string): string[] {
  const delimiter = new RegExp(`^--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(--)?[ \\t]*\\r?$`, 'm');
  const parts: string[] = [];
  let rest = body;
  let found = delimiter.exec(rest);
  if (!found) return [];
  rest = rest.slice(found.index + found[0].length).replace(/^\n/, '');
  while ((found = delimiter.exec(rest))) {
    parts.push(rest.slice(0, found.index).replace(/\r?\n$/, ''));
    if (found[1]) break;
    rest = rest.slice(found.index + found[0].length).replace(/^\n/, '');
  }
  return parts;
}

function transferDecode(body: string, encoding: string): Buffer {
  if (encoding === 'base64') return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    const decoded = body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(decoded, 'latin1');
  }
  return Buffer.from(body, 'latin1');
}

/** `type/subtype; key=value; key="quoted"` (and RFC 2231 `key*=charset''percent-encoded`). */
function parseStructured(value: string): [string, Record<string, string>] {
  const [first, ...rest] = value.split(/;(?=(?:[^"]*"[^"]*")*[^"]*$)/);
  const parameters: Record<string, string> = {};
  for (const entry of rest) {
    const equals = entry.indexOf('=');
    if (equals < 0) continue;
    let key = entry.slice(0, equals).trim().toLowerCase();
    let parameter = entry.slice(equals + 1).trim();
    if (key.endsWith('*')) {
      key = key.slice(0, -1);
      const [, , encoded] = parameter.split("'");
      parameter = decodeURIComponent(encoded ?? parameter);
    } else if (parameter.startsWith('"') && parameter.endsWith('"')) parameter = parameter.slice(1, -1).replace(/\\(.)/g, '$1');
    parameters[key] = parameter;
  }
  return [(first ?? '').trim().toLowerCase(), parameters];
}
