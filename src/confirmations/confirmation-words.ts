/**
 * The answers to "Reply YES to confirm": the whole message, any case, with trailing
 * punctuation or an emoji allowed. Hebrew written afresh (seed 003's was garbled).
 */
const yes = new Set(['yes', 'y', 'ok', 'okay', 'confirm', 'yes please', 'yep', 'sure', 'כן', 'אישור', 'מאשר', 'מאשרת']);
// Not "cancel", "stop" or "end": those are Twilio opt-out words, and unsubscribe the user.
const no = new Set(['no', 'n', 'nope', 'no thanks', 'dont', 'לא', 'ביטול', 'בטל']);

/** "yes", "no", or undefined when the message is anything else. */
export function confirmationAnswer(text: string): 'yes' | 'no' | undefined {
  const normalized = text
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[\p{P}\p{S}\p{Emoji_Presentation}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (yes.has(normalized)) return 'yes';
  if (no.has(normalized)) return 'no';
  return undefined;
}
