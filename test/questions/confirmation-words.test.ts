import { describe, expect, it } from 'vitest';
import { confirmationAnswer } from '../../src/questions/confirmation-words.js';

describe('confirmationAnswer', () => {
  it.each(['yes', 'YES', 'Y', 'ok', 'Okay.', 'confirm', 'yes please', 'Yes!!', ' yes ', 'yes 👍', 'כן', 'כן!', 'אישור'])('"%s" is yes', (text) => {
    expect(confirmationAnswer(text)).toBe('yes');
  });

  // CANCEL declines: on SMS it never gets here (a carrier opt-out word, caught first); on WhatsApp it is an ordinary word.
  it.each(['no', 'NO', 'n', 'nope', 'No thanks.', "don't", 'לא', 'ביטול', 'cancel', 'בטל', 'non', 'nein', 'нет'])('"%s" is no', (text) => {
    expect(confirmationAnswer(text)).toBe('no');
  });

  // Only the whole message answers.
  it.each(['yes, and add eggs', 'ok but later', 'not now', 'stop', 'yesterday', 'כן אבל מחר', ''])('"%s" is not an answer', (text) => {
    expect(confirmationAnswer(text)).toBeUndefined();
  });
});
