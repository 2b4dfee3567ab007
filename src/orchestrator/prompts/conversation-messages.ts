import type { OrchestratorContext } from '../../context/orchestrator-context.js';
import type { ModelMessage } from '../../model/model-client.js';

/**
 * The history window plus the message being answered, as model messages. The API wants
 * the conversation to open with the user, so a window that starts with Herald speaking
 * (an earlier reply, a reminder) is introduced by a short marker.
 */
export function conversationMessages(context: OrchestratorContext): ModelMessage[] {
  const messages: ModelMessage[] = context.history.map((message) => ({ role: message.role, content: message.content }));
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: '(earlier in our conversation)' });
  messages.push({ role: 'user', content: currentMessageText(context) });
  return messages;
}

/** The user's message, noting attachments Herald cannot read. */
export function currentMessageText(context: OrchestratorContext): string {
  const { text, attachments } = context.message;
  if (attachments === 0) return text;
  const note = `(The user also sent ${attachments} attachment${attachments === 1 ? '' : 's'} that Herald cannot open yet.)`;
  return text ? `${text}\n\n${note}` : note;
}
