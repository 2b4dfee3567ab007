import type { AgentRegistry } from '../../../src/agents/agent-registry.js';
import type { ModelClient } from '../../../src/model/model-client.js';
import type { ModelRoles } from '../../../src/model/model-roles.js';
import type { OrchestratorDependencies, OrchestratorLimits } from '../../../src/orchestrator/orchestrate.js';
import { InMemoryPlanStore } from '../../../src/orchestrator/plan-store.js';
import { InMemoryToolCallKeys } from '../../../src/tool-calls/tool-call-keys.js';
import { ManualClock, type Clock } from '../../../src/shared/clock.js';
import { SequentialIds } from '../../../src/shared/ids.js';
import { capturingLogger, type CapturedLogs } from '../../helpers/herald-harness.js';
import { createTestWorld, testRegistry, type TestWorld } from './agents.js';
import { WEDNESDAY_MORNING } from './context.js';

/**
 * Test limits: the design's retries, replans and step budget (docs/ARCHITECTURE.md
 * "Defaults"), with time limits short enough that a test bug fails fast instead of hanging.
 */
const testLimits: OrchestratorLimits = {
  planTimeoutMs: 10_000,
  stepTimeoutMs: 5_000,
  stepMaxRetries: 2,
  maxReplans: 3,
  maxPlanSteps: 10,
  progressAfterMs: 10_000,
  replyMaxTokens: 512,
};

const testModels: ModelRoles = {
  planner: { name: 'test-planner-model', fallbacks: [] },
  agent: { name: 'test-agent-model', fallbacks: [] },
  composer: { name: 'test-composer-model', fallbacks: [] },
};

export interface TestDepsOptions {
  model: ModelClient;
  registry?: AgentRegistry;
  world?: TestWorld;
  limits?: Partial<OrchestratorLimits>;
  /** Defaults to a ManualClock at Wednesday 2026-01-28 10:30 in Los Angeles. */
  clock?: Clock;
  logLevel?: string;
}

/** OrchestratorDependencies over fakes, with handles on the fakes for assertions. */
export interface TestDeps extends OrchestratorDependencies {
  store: InMemoryPlanStore;
  toolCallKeys: InMemoryToolCallKeys;
  logs: CapturedLogs;
  world: TestWorld;
}

export function makeDeps(options: TestDepsOptions): TestDeps {
  const world = options.world ?? createTestWorld();
  const registry = options.registry ?? testRegistry(world).registry;
  const { logger, logs } = capturingLogger(options.logLevel ?? 'debug');
  return {
    model: options.model,
    models: testModels,
    registry,
    store: new InMemoryPlanStore(),
    toolCallKeys: new InMemoryToolCallKeys(),
    clock: options.clock ?? new ManualClock(WEDNESDAY_MORNING),
    ids: new SequentialIds(),
    logger,
    limits: { ...testLimits, ...options.limits },
    logs,
    world,
  };
}
