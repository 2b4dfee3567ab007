/**
 * RFC 2047 encoded words ("=?ISO-8859-1?Q?Andr=E9?=") decoded to text. Adjacent encoded words
 * are joined without the whitespace between them, as the RFC says. Unknown charsets fall back
 * to UTF-8; anything malformed is left as it was.
 */
export function decodeMimeWords(value: string): string {
  if (!value.includes('=?')) return value;
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?\s]+)\?([bq])\?([^?\s]*)\?=/gi, (word, charset: string, encoding: string, encoded: string) => {
      try {
        const bytes = encoding.toUpperCase() === 'B' ? Buffer.from(encoded, 'base64') : quotedPrintableWord(encoded);
        return decodeBytes(bytes, charset.split('*')[0] ?? charset);
      } catch {
        return word;
      }
    });
}

/** Bytes in a named charset as text; an unknown charset is read as UTF-8 (bad bytes become U+FFFD). */
export function decodeBytes(bytes: Uint8Array, charset: string | undefined): string {
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(charset?.trim() || 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
}

// Windows-1252's 0x80–0x9F ("€", curly quotes, dashes). Node 20's TextDecoder reads that range
// as ISO-8859-1 control characters, though "iso-8859-1", "latin1", "us-ascii" and
// "windows-1252" all mean windows-1252 (WHATWG Encoding), as mail clients treat them.
const WINDOWS_1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('latin1').replace(/[\u0080-\u009f]/g, (char) => WINDOWS_1252_HIGH[char.charCodeAt(0) - 0x80]!);
}

function quotedPrintableWord(encoded: string): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < encoded.length; index += 1) {
    const char = encoded[index]!;
    if (char === '_') bytes.push(0x20);
    else if (char === '=' && /^[0-9A-F]{2}$/i.test(encoded.slice(index + 1, index + 3))) {
      bytes.push(Number.parseInt(encoded.slice(index + 1, index + 3), 16));
      index += 2;
    } else bytes.push(...Buffer.from(char, 'utf8'));
  }
  return Buffer.from(bytes);
}
