/**
 * What a WhatsApp or RCS button carries back (Twilio's `ButtonPayload`): the question it
 * answers, by its short id, and the answer, exactly as the user could have typed it ("yes",
 * "no", or a candidate's number). `herald:k7m2qx2a:yes`, `herald:k7m2qx2a:2`.
 */
export interface ButtonAnswer {
  shortId: string;
  /** "yes", "no", or a 1-based candidate number as text. */
  answer: string;
}

const PAYLOAD = /^herald:([a-z0-9]{8}):(yes|no|[1-9]\d?)$/;

/** The payload for one button of a question. */
export function buttonPayload(shortId: string, answer: string): string {
  return `herald:${shortId}:${answer}`;
}

/** Reads a button payload; undefined for anything Herald did not make (treated as text). */
export function readButtonPayload(payload: string | null | undefined): ButtonAnswer | undefined {
  const match = PAYLOAD.exec(payload?.trim() ?? '');
  return match ? { shortId: match[1]!, answer: match[2]! } : undefined;
}
