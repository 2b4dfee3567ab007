/**
 * Opt-out keywords, by channel. On SMS, Twilio acts on the carrier words itself (it stops
 * delivering after STOP, CANCEL, END, QUIT… and resumes after START), so Herald recognises
 * the same messages to keep its own record of who opted out in step with Twilio's. WhatsApp
 * has no such carrier rule: only STOP and UNSUBSCRIBE (and Hebrew הסר) opt out there, and
 * CANCEL, END and QUIT are ordinary words (CANCEL declines a pending question).
 */

/** What a keyword message asks for. */
export type KeywordCommand = 'stop' | 'start' | 'help';

/** Messages that opt an SMS sender out of all further messages (the carrier words, as Twilio applies them). */
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
  'הסר',
] as const;

/** Messages that opt a WhatsApp sender out: no carrier rule applies there, so only the unambiguous words. */
export const WHATSAPP_OPT_OUT_KEYWORDS = ['STOP', 'UNSUBSCRIBE', 'הסר'] as const;

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
const whatsappOptOut: ReadonlySet<string> = new Set(WHATSAPP_OPT_OUT_KEYWORDS);
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
 *   whether "yes" opts them back in; `channel`: the words differ by channel (default SMS,
 *   the strictest: a sender whose channel is unknown is held to the carrier rules).
 * @returns The command, or undefined for an ordinary message.
 */
export function detectKeyword(body: string, options: { optedOut: boolean; channel?: 'sms' | 'whatsapp' | 'rcs' | undefined }): KeywordCommand | undefined {
  const word = normalizeKeyword(body);
  if ((options.channel === 'whatsapp' ? whatsappOptOut : optOut).has(word)) return 'stop';
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
    .replace(/(?<![.!])[.!]+$/, '')
    .trimEnd()
    .toUpperCase();
}
