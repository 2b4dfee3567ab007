import { readerLanguage, TEXT_TABLES, type TextKey } from './texts.js';

/** Herald's own words about attachments, voice notes and location pins, by what they say (their keys in src/texts). */
const keys = {
  photo: 'mediaPhoto',
  pdf: 'mediaPdf',
  voice: 'mediaVoice',
  attachment: 'mediaAttachment',
  numbered: 'mediaNumbered',
  contactCard: 'mediaContactCard',
  cardSaved: 'cardSaved',
  cardNone: 'cardNone',
  cardOverLimit: 'cardOverLimit',
  cardUnreadLines: 'cardUnreadLines',
  cardMerged: 'cardMerged',
  cardRefused: 'cardRefused',
  cardRefusedCount: 'cardRefusedCount',
  cardTooSlow: 'cardTooSlow',
  tooLarge: 'mediaTooLarge',
  photoFile: 'mediaPhotoFile',
  unsupported: 'mediaUnsupported',
  downloadFailed: 'mediaDownloadFailed',
  corrupt: 'mediaCorrupt',
  pdfPages: 'mediaPdfPages',
  pdfLocked: 'mediaPdfLocked',
  tooMuch: 'mediaTooMuch',
  voiceEmpty: 'voiceEmpty',
  voiceTooLong: 'voiceTooLong',
  voiceUnreadable: 'voiceUnreadable',
  voiceOff: 'voiceOff',
  voiceFailed: 'voiceFailed',
  nothingHeard: 'voiceNothingHeard',
  heard: 'voiceHeard',
  zoneQuestion: 'zoneQuestion',
  zoneSame: 'zoneSame',
  zoneUnknown: 'zoneUnknown',
  zoneDone: 'zoneDone',
} as const satisfies Record<string, TextKey>;

export type MediaReply = keyof typeof keys;

/**
 * One of Herald's media texts in the reader's language (src/texts: the language of what they
 * wrote, else their stored one), with `{placeholders}` filled; `{What}` is `{what}` capitalised,
 * for the languages that start a sentence with it.
 */
export function mediaReply(kind: MediaReply, language: string | null, values: Record<string, string | number> = {}, messageText = ''): string {
  const template: string = TEXT_TABLES[readerLanguage(language, messageText)][keys[kind]];
  return template.replace(/\{(\w+)\}/g, (_match, key: string) => {
    const value = String(values[key] ?? values[key.toLowerCase()] ?? '');
    return key === 'What' ? value.charAt(0).toUpperCase() + value.slice(1) : value;
  });
}
