/**
 * Twilio's opt-out keywords. Twilio acts on these itself (it stops delivering after STOP
 * and resumes after START), so Herald must recognise the same messages to keep its own
 * record of who has opted out in step, and must not treat them as requests to the model.
 */

/** What a keyword message asks for. */
export type KeywordCommand = 'stop' | 'start' | 'help';

/** Messages that opt a sender out of all further messages. */
export const OPT_OUT_KEYWORDS = [
  'STOP',
  'STOPALL',
  'STOP ALL',
  'UNSUBSCRIBE',
  'CANCEL',
  'END',
  'QUIT',
  'OPTOUT',
  'OPT OUT',
  'REVOKE',
] as const;

/** Messages that opt a sender back in, whatever their current state. */
export const OPT_IN_KEYWORDS = ['START', 'UNSTOP'] as const;

/**
 * Messages that opt a sender back in only while they are opted out. Otherwise "yes" is
 * an ordinary answer (confirming a reminder, say) and must reach the conversation.
 */
export const OPTED_OUT_ONLY_OPT_IN_KEYWORDS = ['YES'] as const;

/** Messages that ask for help. */
export const HELP_KEYWORDS = ['HELP', 'INFO'] as const;

const optOut: ReadonlySet<string> = new Set(OPT_OUT_KEYWORDS);
const optIn: ReadonlySet<string> = new Set(OPT_IN_KEYWORDS);
const optedOutOnlyOptIn: ReadonlySet<string> = new Set(OPTED_OUT_ONLY_OPT_IN_KEYWORDS);
const help: ReadonlySet<string> = new Set(HELP_KEYWORDS);

/**
 * The keyword command a message is, if the whole message is one keyword.
 *
 * Matching ignores case, surrounding whitespace, runs of inner whitespace and trailing
 * full stops or exclamation marks ("  Stop. " is STOP); anything more ("stop the
 * reminder", "stopping") is an ordinary message.
 *
 * @param body The inbound message text.
 * @param options `optedOut`: whether the sender is currently opted out, which decides
 *   whether "yes" opts them back in.
 * @returns The command, or undefined for an ordinary message.
 */
export function detectKeyword(body: string, options: { optedOut: boolean }): KeywordCommand | undefined {
  const word = normalizeKeyword(body);
  if (optOut.has(word)) return 'stop';
  if (optIn.has(word)) return 'start';
  if (options.optedOut && optedOutOnlyOptIn.has(word)) return 'start';
  if (help.has(word)) return 'help';
  return undefined;
}

/** Upper-cased with whitespace collapsed and trailing "." and "!" dropped. */
function normalizeKeyword(body: string): string {
  return body
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!]+$/, '')
    .trimEnd()
    .toUpperCase();
}
