/** What a data-rights message asks for. */
export type DataCommand = 'my_data' | 'delete_my_data';

// Whole messages only, after normalising case, spaces and trailing punctuation. Hebrew
// written afresh (seed 003's was garbled): "my data" / "my information", and "delete
// my data" in the masculine, feminine and imperative-future forms people actually type.
const myData = new Set(['my data', 'show my data', 'הנתונים שלי', 'המידע שלי', 'הצג את הנתונים שלי']);
const deleteMyData = new Set([
  'delete my data',
  'erase my data',
  'delete all my data',
  'מחק את הנתונים שלי',
  'מחקי את הנתונים שלי',
  'תמחק את הנתונים שלי',
  'תמחקי את הנתונים שלי',
  'מחק את המידע שלי',
  'מחקי את המידע שלי',
  'תמחק את המידע שלי',
  'מחיקת הנתונים שלי',
]);

/**
 * The data-rights command a message is (MY DATA, DELETE MY DATA, in English or Hebrew),
 * when the whole message is one; anything more ("delete my data from the list") is an
 * ordinary message.
 */
export function detectDataCommand(text: string): DataCommand | undefined {
  const normalized = text
    .toLowerCase()
    .replace(/[\s\u200e\u200f]+/g, ' ')
    .trim()
    .replace(/(?<![.!?])[.!?]+$/, '')
    .trim();
  if (myData.has(normalized)) return 'my_data';
  if (deleteMyData.has(normalized)) return 'delete_my_data';
  return undefined;
}
