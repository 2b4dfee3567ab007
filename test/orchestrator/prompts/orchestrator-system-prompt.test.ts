import { describe, expect, it } from 'vitest';
import type { OrchestratorContext } from '../../../src/context/orchestrator-context.js';
import { baseInstructions } from '../../../src/orchestrator/prompts/base-instructions.js';
import { orchestratorSystemPrompt } from '../../../src/orchestrator/prompts/orchestrator-system-prompt.js';

function context(overrides: Partial<OrchestratorContext> = {}): OrchestratorContext {
  return {
    turnId: 't1',
    user: { id: 'u1', name: 'Dana', timezone: 'Europe/London', language: 'en', isNew: false },
    channel: 'sms',
    facts: [{ id: 'f1', category: 'diet', content: 'vegetarian' }],
    history: [],
    message: { text: 'hi', messageIds: ['m1'], attachments: 0 },
    ...overrides,
  };
}

const now = new Date('2026-06-01T08:00:00Z');

describe('orchestratorSystemPrompt', () => {
  it('puts the stable base instructions first, marked for caching, and the per-turn part after, unmarked', () => {
    const blocks = orchestratorSystemPrompt(context(), now);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toEqual({ text: baseInstructions, cache: true });
    expect(blocks[1]?.cache).toBeUndefined();
  });

  it('keeps the cached block identical across users and minutes', () => {
    const one = orchestratorSystemPrompt(context(), now);
    const other = orchestratorSystemPrompt(
      context({ user: { id: 'u9', name: null, timezone: 'Asia/Jerusalem', language: 'he', isNew: true }, facts: [], channel: 'whatsapp' }),
      new Date('2026-12-24T23:59:00Z'),
    );
    expect(other[0]).toEqual(one[0]);
    expect(other[1]).not.toEqual(one[1]);
  });

  it('keeps per-user and per-minute data out of the cached block', () => {
    const [stable] = orchestratorSystemPrompt(context({ user: { id: 'u1', name: 'Zebulon', timezone: 'Pacific/Auckland', language: 'en', isNew: false } }), now);
    expect(stable?.text).not.toContain('Zebulon');
    expect(stable?.text).not.toContain('Pacific/Auckland');
    expect(stable?.text).not.toContain('2026');
    expect(stable?.text).not.toContain('vegetarian');
  });

  it('orders the per-turn part: time, user context, memory, then onboarding for new users', () => {
    const newUser = context({ user: { id: 'u1', name: null, timezone: 'Europe/London', language: null, isNew: true } });
    const text = orchestratorSystemPrompt(newUser, now)[1]!.text;
    const positions = ['<current_time>', '<user_context>', '<user_memory>', '<onboarding>'].map((tag) => text.indexOf(tag));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(text).toContain('Monday, June 1, 2026 at 9:00 AM (2026-06-01T09:00:00+01:00)');
  });

  it('has no onboarding section for a user with a name', () => {
    expect(orchestratorSystemPrompt(context(), now)[1]!.text).not.toContain('<onboarding>');
  });

  it('appends extra stable sections to the cached block', () => {
    const blocks = orchestratorSystemPrompt(context(), now, { sections: ['<agents>memory-agent</agents>'] });
    expect(blocks[0]).toEqual({ text: `${baseInstructions}\n\n<agents>memory-agent</agents>`, cache: true });
  });
});
