import type { OrchestratorContext } from '../../context/orchestrator-context.js';
import type { SystemBlock } from '../../model/model-client.js';
import { baseInstructions } from './base-instructions.js';
import { currentTimeSection, memorySection, onboardingSection, userContextSection } from './user-sections.js';

/** The parts of the orchestrator's system prompt that never change between users. */
export interface StablePromptParts {
  /** Extra stable sections after the base instructions (agent descriptions, planning rules). */
  sections?: string[];
  /** Extra per-turn sections (routing hints). */
  turnSections?: Array<string | undefined>;
}

/**
 * Composes the orchestrator's system prompt from parts (FR-10, CTX-4): the stable part
 * first, marked for prompt caching, then the per-turn part (current time, user context,
 * memory), which changes every minute and per user.
 */
export function orchestratorSystemPrompt(context: OrchestratorContext, now: Date, stable: StablePromptParts = {}): SystemBlock[] {
  const stableText = [baseInstructions, ...(stable.sections ?? [])].join('\n\n');
  const perTurn = [
    currentTimeSection(now, context.user.timezone),
    userContextSection(context.user, context.channel),
    memorySection(context.facts),
    onboardingSection(context.user),
    ...(stable.turnSections ?? []),
  ].filter((section): section is string => section !== undefined);
  return [
    { text: stableText, cache: true },
    { text: perTurn.join('\n\n') },
  ];
}
