/**
 * Twilio error codes that mean the recipient cannot be reached on that channel, now or
 * until they act: retrying will not help, and Herald records the user as unreachable.
 * https://www.twilio.com/docs/api/errors
 */
const unreachableCodes = new Map<number, string>([
  [21211, 'invalid "To" phone number'],
  [21408, 'permission to send to this region is not enabled'],
  [21610, 'recipient has opted out (replied STOP to the carrier)'],
  [21612, 'cannot route to this number'],
  [21614, 'not a mobile number'],
  [63003, 'channel could not find the recipient'],
  [63015, 'WhatsApp sandbox: the recipient has not joined'],
  [63024, 'invalid WhatsApp message recipient'],
]);

/** True for codes that make a user unreachable on the channel. */
export function isUnreachableCode(code: number): boolean {
  return unreachableCodes.has(code);
}
