import type { OrchestratorContext } from '../../context/orchestrator-context.js';
import type { ModelMessage } from '../../model/model-client.js';

/** Opens a window that starts with Herald speaking: the API wants the user first. */
export const EARLIER_CONVERSATION_MARKER = '(earlier in our conversation)';

/**
 * Stands in for a stored message with no text: an attachment-only message (a photo, a
 * voice note) or an empty one (a WhatsApp location pin). The Messages API refuses empty
 * content ("all messages must have non-empty content"), so one such message in the window
 * would otherwise fail every turn for the next 24 hours.
 */
export const NO_TEXT_PLACEHOLDER = '(a message with no text, such as a photo or voice note Herald could not open)';

/**
 * The history window plus the message being answered, as model messages. The API wants
 * the conversation to open with the user, so a window that starts with Herald speaking
 * (an earlier reply, a reminder) is introduced by a short marker. No message is ever
 * sent empty.
 */
export function conversationMessages(context: OrchestratorContext): ModelMessage[] {
  const messages: ModelMessage[] = context.history.map((message) => ({
    role: message.role,
    content: message.content.trim() === '' ? NO_TEXT_PLACEHOLDER : message.content,
  }));
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: EARLIER_CONVERSATION_MARKER });
  messages.push({ role: 'user', content: currentMessageText(context) });
  return messages;
}

/** The user's message, noting attachments Herald cannot read; never empty. */
export function currentMessageText(context: OrchestratorContext): string {
  const { text, attachments } = context.message;
  if (attachments === 0) return text.trim() === '' ? '(The user sent a message with no text.)' : text;
  const note = `(The user also sent ${attachments} attachment${attachments === 1 ? '' : 's'} that Herald cannot open yet.)`;
  return text.trim() ? `${text}\n\n${note}` : note;
}
