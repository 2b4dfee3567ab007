import type { OrchestratorContext, TurnAttachment } from '../../context/orchestrator-context.js';
import type { ContentBlock, ModelMessage } from '../../model/model-client.js';
import { escapeXml } from './xml.js';

/** Opens a window that starts with Herald speaking: the API wants the user first. */
export const EARLIER_CONVERSATION_MARKER = '(earlier in our conversation)';

/**
 * Stands in for a stored message with no text: an attachment-only message (a photo, a
 * voice note) or an empty one (a WhatsApp location pin). The Messages API refuses empty
 * content ("all messages must have non-empty content"), so one such message in the window
 * would otherwise fail every turn for the next 24 hours.
 */
export const NO_TEXT_PLACEHOLDER = '(a message with no text, such as a photo, a file or a location; Herald does not keep attachments after answering them)';

/** Wraps a voice note's transcript so the model knows it was spoken, not typed. */
function spokenText(text: string): string {
  return `<voice_note_transcript>\n${escapeXml(text)}\n</voice_note_transcript>`;
}

/**
 * The history window plus the message being answered, as model messages. The API wants
 * the conversation to open with the user, so a window that starts with Herald speaking
 * (an earlier reply, a reminder) is introduced by a short marker. No message is ever
 * sent empty.
 */
export function conversationMessages(context: OrchestratorContext): ModelMessage[] {
  const messages: ModelMessage[] = context.history.map((message) => ({
    role: message.role,
    content: message.content.trim() === '' ? NO_TEXT_PLACEHOLDER : message.transcribed ? spokenText(message.content) : message.content,
  }));
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: EARLIER_CONVERSATION_MARKER });
  messages.push({ role: 'user', content: currentMessageContent(context) });
  return messages;
}

/**
 * The user's message as the planner sees it: each photo or PDF as a block after a line
 * naming it ("Attachment a1 (photo):"), then the text, with voice notes framed as spoken,
 * the location pin and what became of attachments it cannot see. Text alone is a string.
 */
function currentMessageContent(context: OrchestratorContext): string | ContentBlock[] {
  const text = currentMessageText(context);
  const media = context.message.media ?? [];
  if (media.length === 0) return text;
  return [...attachmentBlocks(media), { type: 'text', text }];
}

/** Attachments as blocks, each introduced by its id so a plan can hand it to a step. */
export function attachmentBlocks(media: readonly TurnAttachment[]): ContentBlock[] {
  return media.flatMap((attachment): ContentBlock[] => [
    { type: 'text', text: `Attachment ${attachment.id} (${attachment.label}):` },
    attachment.kind === 'pdf'
      ? { type: 'document', mediaType: 'application/pdf', data: attachment.data }
      : { type: 'image', mediaType: attachment.mediaType as 'image/jpeg', data: attachment.data },
  ]);
}

/** The user's message as text, noting what Herald could not open; never empty. */
export function currentMessageText(context: OrchestratorContext): string {
  const { text, attachments, parts, location, mediaNotes, media } = context.message;
  const lines: string[] = [];
  // A cut message is shown as cut; otherwise its spoken parts are framed as spoken.
  const spoken = parts?.some((part) => part.spoken) && !context.message.cut;
  if (spoken) {
    for (const part of parts ?? []) if (part.text.trim()) lines.push(part.spoken ? spokenText(part.text) : part.text);
  } else if (text.trim()) lines.push(text);
  if (location) lines.push(location);
  if (media && media.length > 0 && !text.trim()) lines.push(`(The user sent ${media.length === 1 ? 'this attachment' : 'these attachments'} with no text.)`);
  for (const note of mediaNotes ?? []) lines.push(`(${note})`);
  if (attachments > 0) lines.push(`(The user also sent ${attachments} attachment${attachments === 1 ? '' : 's'} that Herald could not open.)`);
  return lines.length > 0 ? lines.join('\n\n') : '(The user sent a message with no text.)';
}
