import { confirmationReply } from '../questions/confirmation-replies.js';
import { fallbackReply } from '../texts/fallback-replies.js';
import { confirmationQuestion } from '../questions/pending-question.js';
import type { TurnOutcome } from './turn-outcome.js';
import { mediaReply } from '../texts/media-replies.js';
import type { PreparedMedia } from '../media/turn-media.js';

/** The media a turn prepared, as the context assembler takes it. */
export function mediaForContext(media: PreparedMedia): { parts: PreparedMedia['parts']; attachments: PreparedMedia['attachments']; location?: string; notes: string[] } {
  return { parts: media.parts, attachments: media.attachments, ...(media.pin ? { location: media.pin.line } : {}), notes: media.modelNotes };
}

/**
 * The turn's outcome when its media leaves nothing for a model to read (every attachment
 * refused, a voice note that could not be transcribed, a pin with "set my time zone from
 * here"): Herald's own words, no model call. Undefined when the model should answer.
 */
export function answerWithoutModel(media: PreparedMedia, user: { language: string | null }, text: string): TurnOutcome | undefined {
  const extras = { costUsd: media.costUsd, transcriptionSeconds: media.transcriptionSeconds, afterCommit: media.release };
  const base = { status: 'succeeded' as const, modelCalls: 0, inputTokens: 0, outputTokens: 0, ...extras };
  if (!media.readable) {
    // One short apology when the transcription service failed; otherwise what became of each attachment.
    const reply = media.transcriptionFailed ? mediaReply('voiceFailed', user.language, {}, text) : media.userNotes.join('\n') || fallbackReply('mediaOnly', user.language, text);
    return { ...base, reply, ...(media.transcriptionFailed ? { status: 'failed' as const, errorKind: 'tool', errorMessage: 'the voice note could not be transcribed' } : {}) };
  }
  const alone = media.pin?.answerAlone;
  if (alone && media.attachments.length === 0 && !media.parts.some((part) => part.spoken)) {
    const offer = media.pin?.offer;
    return {
      ...base,
      reply: offer ? `${alone} ${confirmationReply('ask', user.language, {}, text)}` : alone,
      ...(offer ? { questions: [confirmationQuestion(offer.confirmation)] } : {}),
    };
  }
  return undefined;
}

/**
 * The model's outcome with the media's part added: Herald's notes on attachments it could
 * not read (and the apology for a voice note it could not transcribe), the pin's time-zone
 * offer when no other question is pending, what transcription cost, and the media's release.
 */
export function withMedia(outcome: TurnOutcome, media: PreparedMedia, user: { language: string | null }, text: string): TurnOutcome {
  const notes = [...media.userNotes, ...(media.transcriptionFailed ? [mediaReply('voiceFailed', user.language, {}, text)] : [])];
  let reply = outcome.reply;
  if (reply !== undefined && notes.length > 0) reply = `${reply}\n\n${notes.join('\n')}`;
  let questions = outcome.questions ?? [];
  const offer = media.pin?.offer;
  if (questions.length === 0 && offer && reply !== undefined) {
    reply = `${reply}\n\n${offer.question} ${confirmationReply('ask', user.language, {}, text)}`;
    questions = [confirmationQuestion(offer.confirmation)];
  }
  return {
    ...outcome,
    ...(reply !== undefined ? { reply } : {}),
    ...(questions.length > 0 ? { questions } : {}),
    costUsd: (outcome.costUsd ?? 0) + media.costUsd,
    transcriptionSeconds: media.transcriptionSeconds,
    afterCommit: media.release,
  };
}
