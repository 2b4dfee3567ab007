import { translate } from './lexicon.js';
import { isTimeLanguage, languageRules } from './languages/index.js';
import type { Placed } from './symbols.js';
import { MAX_PHRASE_LENGTH, tokenize } from './tokenize.js';

/** Symbols that name a day or a time on their own. */
const timeKinds = new Set(['rel', 'weekday', 'holiday', 'clock', 'ampm', 'eod']);

function mentionsIn(placed: Placed[]): boolean {
  return placed.some((item, index) => {
    const sym = item.sym;
    if (timeKinds.has(sym.k)) return true;
    // A month only beside a number ("may 3", "3 de mayo"): "May I ask…" is not a date.
    const before = placed[index - 1]?.sym;
    if (sym.k === 'month') return [before, placed[index + 1]?.sym, placed[index - 2]?.sym, placed[index + 2]?.sym].some((near) => near?.k === 'num' || near?.k === 'ord');
    // "15:30", "at 5", "in 20 minutes", "5 o'clock", "15h".
    const next = placed[index + 1]?.sym;
    const after = placed[index + 2]?.sym;
    if (sym.k === 'num' && next?.k === 'punct' && next.v === ':' && after?.k === 'num') return true;
    if (sym.k === 'num' && (next?.k === 'oclock' || next?.k === 'h')) return true;
    if (sym.k === 'at' && next?.k === 'num') return true;
    if ((sym.k === 'in' || sym.k === 'within') && (next?.k === 'unit' || (next?.k === 'num' && after?.k === 'unit') || next?.k === 'a' || next?.k === 'half' || next?.k === 'quarter')) return true;
    return false;
  });
}

/**
 * Whether a message mentions a day or a time ("remind me at 5pm", "mañana", "in 20 minutes",
 * "שישי"): the words the resolver reads, looked for anywhere in the text. Cheap and
 * model-free; used to ask a user's zone before the first message that needs it.
 */
export function mentionsTime(text: string, language: string | null | undefined): boolean {
  const cut = text.slice(0, MAX_PHRASE_LENGTH * 4);
  const tokens = tokenize(cut);
  const english = languageRules('en').lexicon;
  if (isTimeLanguage(language) && language !== 'en' && mentionsIn(translate(tokens, languageRules(language).lexicon, english))) return true;
  return mentionsIn(translate(tokens, english, undefined));
}
