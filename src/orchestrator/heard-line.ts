import type { OrchestratorContext } from '../context/orchestrator-context.js';
import { mediaReply } from '../texts/media-replies.js';

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
