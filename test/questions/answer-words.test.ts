import { describe, expect, it } from 'vitest';
import { pickCandidates, yesOrNo } from '../../src/questions/answer-words.js';

const labels = ['Call mom, Thu 10:00', 'Call dad, Thu 10:05'];

describe('pickCandidates', () => {
  it.each([
    ['1', [0]], ['2', [1]], ['#2', [1]], ['2.', [1]], ['2nd', [1]], ['the second', [1]], ['second one', [1]], ['the 2nd one', [1]], ['number 2', [1]],
    ['1 and 2', [0, 1]], ['both', [0, 1]], ['all of them', [0, 1]], ['last', [1]], ['the last one', [1]],
    ['השני', [1]], ['השנייה', [1]], ['הראשון', [0]], ['שניהם', [0, 1]], ['la segunda', [1]], ['le premier', [0]], ['der zweite', [1]], ['o segundo', [1]], ['второй', [1]], ['الثاني', [1]],
    ['dad', [1]], ['Mom!', [0]], ['call dad', [1]],
  ])('"%s" picks %j', (text, indexes) => {
    expect(pickCandidates(text, labels)).toEqual({ kind: 'pick', indexes });
  });

  it.each(['3', 'the third', '0', '#7'])('"%s" is out of range of two', (text) => {
    expect(pickCandidates(text, labels)).toEqual({ kind: 'out_of_range' });
  });

  it.each(['none', 'no', 'neither', 'לא', 'cancel', 'nein'])('"%s" picks none', (text) => {
    expect(pickCandidates(text, labels)).toEqual({ kind: 'none' });
  });

  it.each(["what's the weather?", 'call', 'remind me to buy milk', 'thursday', ''])('"%s" is not an answer', (text) => {
    expect(pickCandidates(text, labels)).toBeUndefined();
  });
});

describe('yesOrNo', () => {
  it.each(['yes', 'Yes!', 'sí', 'oui', 'ja', 'sim', 'да', 'نعم', 'כן'])('"%s" is yes', (text) => expect(yesOrNo(text)).toBe('yes'));
  it.each(['no', 'non', 'nein', 'não', 'нет', 'لا', 'לא', 'cancel', 'בטל'])('"%s" is no', (text) => expect(yesOrNo(text)).toBe('no'));
});
