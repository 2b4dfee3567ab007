import { describe, expect, it } from 'vitest';
import type { HistoryMessage, OrchestratorContext } from '../../../src/context/orchestrator-context.js';
import { conversationMessages, currentMessageText, EARLIER_CONVERSATION_MARKER, NO_TEXT_PLACEHOLDER } from '../../../src/orchestrator/prompts/conversation-messages.js';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));

function context(history: HistoryMessage[], text: string, attachments = 0): OrchestratorContext {
  return {
    turnId: 't1',
    user: { id: 'u1', name: 'Dana', timezone: 'UTC', language: null, isNew: false },
    channel: 'sms',
    facts: [],
    history,
    message: { text, messageIds: ['m1'], attachments },
  };
}

describe('conversationMessages', () => {
  it('is just the message when there is no history', () => {
    expect(conversationMessages(context([], 'hello'))).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('keeps the history in order and ends with the message being answered', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'hi', createdAt: at(1) },
      { role: 'assistant', content: 'Hello! What should I call you?', createdAt: at(2) },
    ];
    expect(conversationMessages(context(history, 'Dana'))).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello! What should I call you?' },
      { role: 'user', content: 'Dana' },
    ]);
  });

  it('opens with a user marker when the window starts with Herald speaking', () => {
    const history: HistoryMessage[] = [{ role: 'assistant', content: 'Reminder: call mom', createdAt: at(1) }];
    const messages = conversationMessages(context(history, 'done'));
    expect(messages).toEqual([
      { role: 'user', content: EARLIER_CONVERSATION_MARKER },
      { role: 'assistant', content: 'Reminder: call mom' },
      { role: 'user', content: 'done' },
    ]);
  });

  it('never sends an empty message, which the API refuses: an earlier attachment-only message gets a placeholder', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: '', createdAt: at(1) },
      { role: 'assistant', content: 'I can only read text for now.', createdAt: at(2) },
    ];
    const messages = conversationMessages(context(history, 'it was a cat'));
    expect(messages).toHaveLength(3);
    for (const message of messages) expect(String(message.content).trim()).not.toBe('');
    expect(messages[0]?.content).toBe(NO_TEXT_PLACEHOLDER);
  });

  it('gives an empty current message (a location pin, whitespace) a placeholder rather than empty content', () => {
    const [message] = conversationMessages(context([], ''));
    expect(String(message?.content).trim()).not.toBe('');
  });
});

describe('currentMessageText', () => {
  it('is the text alone without attachments', () => {
    expect(currentMessageText(context([], 'hello'))).toBe('hello');
  });

  it('notes one attachment Herald cannot open after the caption', () => {
    expect(currentMessageText(context([], 'look at this', 1))).toBe('look at this\n\n(The user also sent 1 attachment that Herald could not open.)');
  });

  it('pluralises, and stands alone without a caption', () => {
    expect(currentMessageText(context([], '', 3))).toBe('(The user also sent 3 attachments that Herald could not open.)');
  });
});
