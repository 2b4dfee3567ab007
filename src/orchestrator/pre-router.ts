import type { AgentRegistry } from '../agents/agent-registry.js';
import type { ConversationSubject } from '../context/orchestrator-context.js';

/** One agent the message's wording points to. */
export interface RoutingHint {
  agent: string;
  score: number;
  matched: string[];
}

/** Lower-cases and collapses whitespace; keeps Hebrew letters as they are. */
function normalize(text: string): string {
  return ` ${text.toLowerCase().replace(/[^\p{L}\p{N}'\s]+/gu, ' ').replace(/\s+/g, ' ').trim()} `;
}

/**
 * Pattern-matching pre-router (seed 003): scores each agent by the trigger phrases
 * (English and Hebrew) found in the message, plus a small priority tie-breaker, and
 * returns the best candidates. It decides nothing: the planner receives the hints and
 * makes the call.
 */
export function routeByPatterns(message: string, registry: AgentRegistry, limit = 3): RoutingHint[] {
  const text = normalize(message);
  const hints: RoutingHint[] = [];
  for (const agent of registry.list()) {
    const matched = [...agent.triggers.english, ...agent.triggers.hebrew].filter((phrase) => {
      const needle = normalize(phrase).trimEnd();
      // Hebrew prefixes attach to words (ו, ש, ה…), so Hebrew phrases match inside words.
      return /[\u0590-\u05FF]/.test(phrase) ? text.includes(needle.trim()) : text.includes(`${needle} `);
    });
    if (matched.length === 0) continue;
    hints.push({ agent: agent.name, score: matched.length + agent.priority / 1000, matched });
  }
  return hints.sort((left, right) => right.score - left.score).slice(0, limit);
}

/** The `<routing_hints>` prompt section, or undefined when nothing matched. */
export function routingHintsSection(hints: RoutingHint[]): string | undefined {
  if (hints.length === 0) return undefined;
  const lines = hints.map((hint) => `  <hint agent="${hint.agent}" matched="${hint.matched.join(', ').replaceAll('"', '')}"/>`);
  return `<routing_hints>\nThe wording suggests these agents (a hint, not a rule):\n${lines.join('\n')}\n</routing_hints>`;
}

/** A reply to a reminder is most likely about it: point the planner at the scheduler, and use the full planner. */
export function withSubjectHint(hints: RoutingHint[], subject: ConversationSubject | undefined): RoutingHint[] {
  if (subject?.kind !== 'reminder' || hints.some((hint) => hint.agent === 'scheduler-agent')) return hints;
  return [{ agent: 'scheduler-agent', score: 1, matched: ['(a reply to a reminder)'] }, ...hints];
}
