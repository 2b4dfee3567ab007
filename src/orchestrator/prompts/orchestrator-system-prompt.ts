import type { OrchestratorContext } from '../../context/orchestrator-context.js';
import type { SystemBlock } from '../../model/model-client.js';
import { baseInstructions } from './base-instructions.js';
import { estimateTokens } from '../../shared/tokens.js';
import { currentTimeSection, memorySection, onboardingSection, userContextSection } from './user-sections.js';

/** The parts of the orchestrator's system prompt that never change between users. */
export interface StablePromptParts {
  /** Extra stable sections after the base instructions (agent descriptions, planning rules). */
  sections?: string[];
  /** Extra per-turn sections (routing hints). */
  turnSections?: Array<string | undefined>;
  /**
   * The whole prompt's budget in tokens (CTX-6: ~8000 for the orchestrator). What the
   * other parts and the conversation leave is memory's; facts beyond it are left out,
   * with a note saying so.
   */
  budgetTokens?: number;
  /** Tokens the conversation messages take, counted against the budget. */
  conversationTokens?: number;
}

/**
 * Composes the orchestrator's system prompt from parts (FR-10, CTX-4): the stable part
 * first, marked for prompt caching, then the per-turn part (current time, user context,
 * memory), which changes every minute and per user.
 */
export function orchestratorSystemPrompt(context: OrchestratorContext, now: Date, stable: StablePromptParts = {}): SystemBlock[] {
  const stableText = [baseInstructions, ...(stable.sections ?? [])].join('\n\n');
  const around = [
    currentTimeSection(now, context.user.timezone),
    userContextSection(context.user, context.channel),
    onboardingSection(context.user),
    ...(stable.turnSections ?? []),
  ].filter((section): section is string => section !== undefined);
  const used = estimateTokens(stableText) + estimateTokens(around.join('\n\n')) + (stable.conversationTokens ?? 0);
  const memoryBudget = stable.budgetTokens === undefined ? Number.POSITIVE_INFINITY : Math.max(200, stable.budgetTokens - used);
  const [time, userContext, ...rest] = around;
  const perTurn = [time!, userContext!, memorySection(context.facts, memoryBudget), ...rest];
  return [
    { text: stableText, cache: true },
    { text: perTurn.join('\n\n') },
  ];
}
