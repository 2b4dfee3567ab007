import { parseSymbols, type Placed, type Sym } from './symbols.js';
import { tokenize, type Token } from './tokenize.js';

/**
 * A language's words for time, as a phrasebook: phrase → symbols. Phrases are written as a
 * user types them; they are tokenized (and folded) the same way the user's text is, so
 * "o'clock", "a.m." and "día" match "oclock", "a . m ." and "dia".
 */
export interface LexiconSource {
  /** ISO 639-1 code. */
  language: string;
  phrases: Record<string, string>;
  /**
   * Letters glued to the front of a word that carry a meaning of their own (Hebrew ב, ל, ו;
   * Arabic و, ب, ال), tried when the whole word is unknown: longest first.
   */
  prefixes?: Record<string, string>;
}

interface TrieNode {
  children: Map<string, TrieNode>;
  symbols?: Sym[];
}

/** A compiled lexicon. */
export interface Lexicon {
  language: string;
  root: TrieNode;
  prefixes: Array<{ prefix: string; symbols: Sym[] }>;
}

function tokenText(token: Token): string {
  return token.text;
}

/** Compiles a phrasebook; throws on a symbol that does not exist (the module fails to load). */
export function compileLexicon(source: LexiconSource): Lexicon {
  const root: TrieNode = { children: new Map() };
  for (const [phrase, spec] of Object.entries(source.phrases)) {
    const tokens = tokenize(phrase);
    if (tokens.length === 0) throw new Error(`Empty phrase in the ${source.language} time lexicon`);
    let node = root;
    for (const token of tokens) {
      const key = tokenText(token);
      let child = node.children.get(key);
      if (!child) {
        child = { children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
    node.symbols = parseSymbols(spec);
  }
  const prefixes = Object.entries(source.prefixes ?? {})
    .map(([prefix, spec]) => ({ prefix: tokenize(prefix).map(tokenText).join(''), symbols: parseSymbols(spec) }))
    .sort((left, right) => right.prefix.length - left.prefix.length);
  return { language: source.language, root, prefixes };
}

/** The longest phrase of `lexicon` starting at `start`: its symbols and length in tokens. */
function longestMatch(lexicon: Lexicon, tokens: Token[], start: number): { symbols: Sym[]; length: number } | undefined {
  let node = lexicon.root;
  let best: { symbols: Sym[]; length: number } | undefined;
  for (let index = start; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (!token) break;
    const child = node.children.get(tokenText(token));
    if (!child) break;
    node = child;
    if (node.symbols) best = { symbols: node.symbols, length: index - start + 1 };
  }
  return best;
}

/** A word with a meaningful prefix glued on ("בשמונה" = at + eight), read through `lexicon`. */
function withPrefix(lexicon: Lexicon, word: string, depth = 0): Sym[] | undefined {
  if (depth > 2) return undefined;
  for (const { prefix, symbols } of lexicon.prefixes) {
    if (!word.startsWith(prefix) || word.length <= prefix.length + 1) continue;
    const rest = word.slice(prefix.length);
    const whole = longestMatch(lexicon, [{ kind: 'word', text: rest }], 0);
    if (whole) return [...symbols, ...whole.symbols];
    const deeper = withPrefix(lexicon, rest, depth + 1);
    if (deeper) return [...symbols, ...deeper];
  }
  return undefined;
}

/**
 * Translates tokens into symbols: at each position the longest phrase of the user's
 * language, else of the fallback (English, so "mañana at 5pm" reads), else the word with a
 * known prefix, else the word itself, unknown. Numbers and punctuation pass through.
 */
export function translate(tokens: Token[], lexicon: Lexicon, fallback: Lexicon | undefined): Placed[] {
  const placed: Placed[] = [];
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index];
    if (!token) break;
    if (token.kind === 'number') {
      placed.push({ sym: { k: 'num', v: token.value, digits: token.text }, text: token.text });
      index += 1;
      continue;
    }
    if (token.kind === 'punct') {
      placed.push({ sym: { k: 'punct', v: token.text }, text: token.text });
      index += 1;
      continue;
    }
    const match = longestMatch(lexicon, tokens, index) ?? (fallback ? longestMatch(fallback, tokens, index) : undefined);
    if (match) {
      const text = tokens.slice(index, index + match.length).map(tokenText).join(' ');
      for (const sym of match.symbols) placed.push({ sym, text });
      index += match.length;
      continue;
    }
    const prefixed = withPrefix(lexicon, token.text);
    if (prefixed) {
      for (const sym of prefixed) placed.push({ sym, text: token.text });
    } else {
      placed.push({ sym: { k: 'word', v: token.text }, text: token.text });
    }
    index += 1;
  }
  return mergeNumbers(placed);
}

function isNumberWord(placed: Placed | undefined, test: (value: number) => boolean): boolean {
  return placed?.sym.k === 'num' && placed.sym.word === true && test(placed.sym.v);
}

const isTens = (value: number): boolean => value >= 20 && value <= 90 && value % 10 === 0;
const isUnit = (value: number): boolean => value >= 1 && value <= 9;

/**
 * Joins what a language writes as several symbols into one: a number and its ordinal
 * suffix ("3rd", "1er", "1-го", "1.º"), and compound number words written tens first ("twenty
 * five", "twenty-five", "treinta y cinco", "עשרים וחמש"). Languages that put units first
 * ("fünfundzwanzig", "خمسة وعشرون") list their compounds as phrases: read the other way, "five
 * and twenty" would swallow "ב5 ועשרים" (5:20).
 */
function mergeNumbers(placed: Placed[]): Placed[] {
  const out: Placed[] = [];
  for (let index = 0; index < placed.length; index += 1) {
    const current = placed[index];
    if (!current) continue;
    const next = placed[index + 1];
    if (current.sym.k === 'num' && next?.sym.k === 'ord-suffix') {
      out.push({ sym: { k: 'ord', v: current.sym.v }, text: `${current.text}${next.text}` });
      index += 1;
      continue;
    }
    if (current.sym.k === 'num' && next?.sym.k === 'punct' && (next.sym.v === '-' || next.sym.v === '.') && placed[index + 2]?.sym.k === 'ord-suffix') {
      out.push({ sym: { k: 'ord', v: current.sym.v }, text: `${current.text}-${placed[index + 2]?.text ?? ''}` });
      index += 2;
      continue;
    }
    if (isNumberWord(current, isTens)) {
      const joiner = next?.sym.k === 'and' || (next?.sym.k === 'punct' && next.sym.v === '-') ? 1 : 0;
      const other = placed[index + 1 + joiner];
      if (other && isNumberWord(other, isUnit) && current.sym.k === 'num' && other.sym.k === 'num') {
        out.push({ sym: { k: 'num', v: current.sym.v + other.sym.v, word: true }, text: `${current.text} ${other.text}` });
        index += 1 + joiner;
        continue;
      }
    }
    out.push(current);
  }
  return out;
}
