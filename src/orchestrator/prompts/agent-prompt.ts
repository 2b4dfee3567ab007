import type { AgentDefinition } from '../../agents/agent-definition.js';
import type { UserContext } from '../../context/orchestrator-context.js';
import type { SystemBlock } from '../../model/model-client.js';
import { estimateTokens } from '../../shared/tokens.js';
import type { StepAttempt } from '../step-attempt.js';
import { describeNow, formatTimeContextLine } from '../utility-tools/time-context.js';
import { tripLine } from './user-sections.js';
import { dataSection, escapeXml } from './xml.js';

/**
 * A sub-agent's system prompt: its own instructions (stable, cached), then the user
 * config every agent receives (FR-9, CTX-3). No memory and no history (FR-7, FR-8).
 */
export function agentSystemPrompt(agent: AgentDefinition, user: UserContext, now: Date, replyLanguage?: string): SystemBlock[] {
  const config = [
    '<user_config>',
    `  <name>${user.name ? escapeXml(user.name) : '(unknown)'}</name>`,
    `  <timezone>${escapeXml(user.timezone)}</timezone>`,
    ...tripLine(user),
    ...(replyLanguage ? [`  <language>${escapeXml(replyLanguage)} (write any question or reply for the user in it)</language>`] : []),
    `  <current_time>${formatTimeContextLine(describeNow(now, user.timezone))}</current_time>`,
    '</user_config>',
  ].join('\n');
  return [{ text: agent.systemPrompt, cache: true }, { text: config }];
}

/** Marks where a long output was cut to fit the agent's prompt budget (CTX-6). */
function truncateWithMarker(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  const kept = Math.max(0, maxCharacters - 40);
  return `${text.slice(0, kept)}…[truncated ${text.length - kept} characters]`;
}

/**
 * The sub-agent's one user message: its task, earlier steps' outputs (FR-5, CTX-5),
 * a note on a failed earlier attempt (Phoenix retry), and reply instructions. Earlier
 * outputs share what is left of the prompt budget and are truncated with a marker.
 */
export function agentTaskMessage(attempt: StepAttempt, budgetTokens: number): string {
  const parts = [`<task>\n${attempt.step.task}\n</task>`];
  if (attempt.previousAttempt) {
    parts.push(`<previous_attempt>\nAn earlier attempt at this task failed. Start afresh and avoid the same problem.\n${attempt.previousAttempt}\n</previous_attempt>`);
  }
  if (attempt.reply === 'whole') {
    parts.push(
      `<reply>\nYour result is the whole answer to the user. In complete_step, also write "reply": a short, friendly text message to the user in ${attempt.replyLanguage}, saying what you did (or could not do). No internal details.\n</reply>`,
    );
  } else if (attempt.reply === 'part') {
    parts.push(
      `<reply>\nYour result is one part of the answer to the user; other tasks of the same request give theirs, and the parts are sent together. In complete_step, also write "reply": one or two short sentences to the user in ${attempt.replyLanguage} about your task only, saying what you did (or could not do). No greeting, no sign-off, no internal details.\n</reply>`,
    );
  }
  const fixed = parts.join('\n\n');
  if (attempt.previousOutputs.length > 0) {
    const remainingTokens = Math.max(200, budgetTokens - estimateTokens(fixed) - 100);
    const perStepCharacters = Math.floor((remainingTokens * 4) / attempt.previousOutputs.length);
    const steps = attempt.previousOutputs.map(
      (previous) =>
        `  <step id="${escapeXml(previous.stepId)}" agent="${escapeXml(previous.agent)}">\n${truncateWithMarker(JSON.stringify(previous.output), perStepCharacters)}\n  </step>`,
    );
    // What earlier steps read (notes, lists, contacts, events, mail) is data here, as in the planner's prompt.
    return `${fixed}\n\n${dataSection('context_from_previous_steps', steps.join('\n'))}`;
  }
  return fixed;
}
