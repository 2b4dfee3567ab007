import type { ListService } from '../lists/list-service.js';
import type { FactService } from '../memory/fact-service.js';
import type { PageService } from '../pages/page-service.js';
import { bulkPage } from '../pages/bulk-page.js';
import type { ReminderService } from '../reminders/reminder-service.js';
import type { TravelTrips } from '../reminders/travel-trips.js';
import type { RoutineService } from '../routines/routine-service.js';
import type { UserService } from '../users/user-service.js';
import type { AgentDefinition } from './agent-definition.js';
import { createAgentRegistry, type AgentRegistry } from './agent-registry.js';
import { generalAgent } from './general/general-agent.js';
import { listAgent } from './lists/list-agent.js';
import { memoryAgent, type BrainServices } from './memory/memory-agent.js';
import { schedulerAgent } from './scheduler/scheduler-agent.js';
import { uiAgent } from './ui/ui-agent.js';

/** The services Herald's agents act through; the calendar and email modules bring their own agents. */
export interface HeraldAgentServices {
  reminders: ReminderService;
  /** Routines (scheduler-agent's routine tools); absent: none offered. */
  routines?: RoutineService;
  lists: ListService;
  facts: FactService;
  users: UserService;
  pages: PageService;
  calendar: { agent: AgentDefinition };
  email: { agent: AgentDefinition };
  /** Notes and search_memory (memory-agent grows into the second brain). */
  brain?: Omit<BrainServices, 'pages'> | undefined;
  /** The people in the user's life. */
  contacts?: { agent: AgentDefinition } | undefined;
  /** Trips with a return date ("I'm in Tokyo until Friday"); absent: update_profile sets zones only. */
  trips?: TravelTrips | undefined;
}

/**
 * Every agent Herald runs, in one place: the runtime and the scenarios benchmark both build
 * their registry here, so a benchmark's planner prompt is as long as production's.
 * `promptBudgetTokens` is each agent's context budget (CTX-6, AGENT_PROMPT_TOKENS).
 */
export function createHeraldAgents(services: HeraldAgentServices, promptBudgetTokens: number): AgentRegistry {
  const agents = [
    schedulerAgent(services.reminders, bulkPage(services.pages), services.routines),
    listAgent(services.lists, bulkPage(services.pages)),
    memoryAgent(services.facts, services.users, services.brain ? { ...services.brain, pages: services.pages } : undefined, services.trips),
    uiAgent(services.pages),
    services.calendar.agent,
    services.email.agent,
    ...(services.contacts ? [services.contacts.agent] : []),
    generalAgent,
  ];
  return createAgentRegistry(agents.map((agent) => ({ ...agent, promptBudgetTokens })));
}
