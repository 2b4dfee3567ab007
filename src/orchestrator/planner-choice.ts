import type { AgentRegistry } from '../agents/agent-registry.js';
import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import type { ModelRoles, RoleModel } from '../model/model-roles.js';
import { ConfigurationError } from '../shared/errors.js';
import { logPlanEvent } from './plan-events.js';
import { lightPlanRound, planRound, type PlannerDependencies, type PlanningOutcome, type PlanningRequest } from './planner.js';
import type { RoutingHint } from './pre-router.js';

/**
 * Start-up check: MODEL_PLANNER_LIGHT_AGENTS names only agents Herald has, so a typo cannot
 * silently send every request to the planner.
 */
export function checkLightPlannerAgents(models: Pick<ModelRoles, 'plannerLight'>, registry: AgentRegistry): void {
  const unknown = (models.plannerLight?.agents ?? []).filter((name) => !registry.get(name));
  if (unknown.length === 0) return;
  const known = registry.list().map((agent) => agent.name);
  throw new ConfigurationError(`MODEL_PLANNER_LIGHT_AGENTS names ${unknown.map((name) => `"${name}"`).join(', ')}, which Herald does not have; use some of: ${known.join(', ')} (or "none")`);
}

/** Which model plans a message; `light` when it is the light planner, which may hand it on. */
export interface PlannerChoice {
  model: RoleModel;
  light: boolean;
}

/**
 * The light planner takes a new message with no attachments whose wording points to no agent, or
 * points more strongly to its agents (MODEL_PLANNER_LIGHT_AGENTS: memory and lists by default,
 * whose requests touch nothing but the user's own data) than to any other: more of their trigger
 * phrases. "Remember that I don't like early meetings" is memory's ("remember", "i don't like")
 * more than the calendar's ("meetings"); "add the dentist appointment" is as much the calendar's
 * as a list's, so the planner takes it. Everything else is the planner's: wording mainly for
 * another agent, photos and PDFs to read, an answer to Herald's question, a reply to a reminder,
 * and every replan.
 */
export function choosePlanner(context: OrchestratorContext, hints: RoutingHint[], models: Pick<ModelRoles, 'planner' | 'plannerLight'>): PlannerChoice {
  const light = models.plannerLight;
  // A reply to a reminder just delivered is most likely about it: the scheduler's, with the planner.
  if (!light || context.resume || context.subject?.kind === 'reminder' || (context.message.media?.length ?? 0) > 0) return { model: models.planner, light: false };
  const strongest = (ofLight: boolean) => Math.max(0, ...hints.filter((hint) => light.agents.includes(hint.agent) === ofLight).map((hint) => hint.matched.length));
  if (hints.length > 0 && strongest(true) <= strongest(false)) return { model: models.planner, light: false };
  return { model: light, light: true };
}

/**
 * The first planning round (`deps.plannerModel` is the planner): the chosen planner plans; when
 * the light planner hands the message on (`hand_to_planner`), the planner plans it from the
 * start, with the same request. The turn pays one small call for the hand-off; its budget
 * counts both.
 */
export async function planFirstRound(
  context: OrchestratorContext,
  choice: PlannerChoice,
  deps: PlannerDependencies,
  request: PlanningRequest,
  log: { logger: Logger; planId: string },
): Promise<PlanningOutcome & { handedOff: boolean }> {
  if (!choice.light) return { ...(await planRound(context, deps, request)), handedOff: false };
  const first = await lightPlanRound(context, { ...deps, plannerModel: choice.model }, request);
  if (first.kind !== 'handed_off') return { ...first, handedOff: false };
  // The reason is the model's words about the message: debug only, like the message itself.
  log.logger.debug({ reason: first.reason }, 'light planner handed the message on');
  logPlanEvent(log.logger, 'plan_handed_off', { id: log.planId }, { from: choice.model.name, to: deps.plannerModel.name });
  return { ...(await planRound(context, deps, request)), handedOff: true };
}
