import type { Logger } from '../logging/logger.js';
import type { ModelRequest } from './model-client.js';
import { conservativeProfile, isKnownModel, type Effort } from './model-profiles.js';

/** The model one role (planner, agents, composer) uses: a primary, its fallbacks, and an effort level. */
export interface RoleModel {
  name: string;
  /** Tried in order when the primary is unavailable. */
  fallbacks: readonly string[];
  effort?: Effort | undefined;
}

/** The light planner: a cheaper model for everyday messages, and the agents it plans for. */
interface LightPlannerRole extends RoleModel {
  /**
   * The agents whose requests it plans (MODEL_PLANNER_LIGHT_AGENTS): a message whose wording
   * points to no agent, or more strongly to these than to any other, is its to plan
   * (src/orchestrator/planner-choice.ts).
   */
  agents: readonly string[];
}

/** Every role's model. */
export interface ModelRoles {
  planner: RoleModel;
  /**
   * Plans everyday messages: greetings, questions, small talk, and requests for the agents it
   * is given (remember this, add that to a list), most of them answered directly or in one
   * step. A cheaper model for the commonest turns; it hands anything harder to `planner`, and
   * replanning always uses `planner`. Absent: `planner` does it all.
   */
  plannerLight?: LightPlannerRole | undefined;
  agent: RoleModel;
  composer: RoleModel;
}

/** The request fields that say which model answers a role, and how hard it works. */
export function roleRequest(role: RoleModel): Pick<ModelRequest, 'model' | 'fallbackModels' | 'effort'> {
  return { model: role.name, fallbackModels: role.fallbacks, ...(role.effort ? { effort: role.effort } : {}) };
}

/**
 * Warns, once at start-up, about every configured model name Herald has no profile for:
 * such a model is sent only the settings every model accepts, caches only long prompts,
 * and is costed at the highest current prices.
 */
export function warnAboutUnknownModels(roles: ModelRoles, logger: Logger): string[] {
  const configured = Object.values(roles).filter((role): role is RoleModel => role !== undefined);
  const names = new Set(configured.flatMap((role) => [role.name, ...role.fallbacks]));
  const unknown = [...names].filter((name) => !isKnownModel(name));
  for (const model of unknown) {
    logger.warn(
      { model, costedAtPerMillion: conservativeProfile.prices },
      'unknown model name: using the conservative profile (no sampling parameters, no effort, no forced tool choice; costed at the highest prices)',
    );
  }
  return unknown;
}
