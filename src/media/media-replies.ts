import type { OrchestratorContext } from '../context/orchestrator-context.js';
import { readerLanguage, TEXT_TABLES, type TextKey } from '../texts/texts.js';

/** Herald's own words about attachments, voice notes and location pins, by what they say (their keys in src/texts). */
const keys = {
  photo: 'mediaPhoto',
  pdf: 'mediaPdf',
  voice: 'mediaVoice',
  attachment: 'mediaAttachment',
  numbered: 'mediaNumbered',
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

/**
 * 'I heard: "…".' for a turn whose words were spoken (a voice note), so a question asked
 * for YES quotes what was heard; undefined for typed text. Long transcripts are shortened.
 */
export function heardLine(context: OrchestratorContext): string | undefined {
  const spoken = (context.message.parts ?? []).filter((part) => part.spoken).map((part) => part.text.trim()).filter(Boolean).join(' ');
  if (!spoken) return undefined;
  const text = spoken.length > 200 ? `${spoken.slice(0, 197).trimEnd()}…` : spoken;
  return mediaReply('heard', context.user.language, { text }, context.message.text);
}
