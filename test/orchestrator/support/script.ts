import type { ContentBlock, ModelRequest, ToolResultBlock } from '../../../src/model/model-client.js';
import type { ScriptedModel, ScriptedTurn } from '../../../src/model/scripted-model.js';
import type { InMemoryPlanStore } from '../../../src/orchestrator/plan-store.js';
import { ModelError } from '../../../src/shared/errors.js';

/** A planned step as the planner writes it. */
export interface StepSpec {
  id: string;
  agent: string;
  task: string;
  dependsOn?: string[];
}

export const step = (id: string, agent: string, task: string, dependsOn?: string[]): StepSpec => ({ id, agent, task, ...(dependsOn ? { dependsOn } : {}) });

/** A plain-text answer. */
export const say = (text: string): ScriptedTurn => ({ text });

/** One or more tool calls in one response. */
export const callTools = (...calls: Array<[name: string, input: unknown]>): ScriptedTurn => ({ toolCalls: calls.map(([name, input]) => ({ name, input })) });

export const callTool = (name: string, input: unknown): ScriptedTurn => callTools([name, input]);

/** The planner's `create_plan` call. */
export function createPlan(steps: StepSpec[], extra: Record<string, unknown> = {}): ScriptedTurn {
  return callTool('create_plan', { analysis: 'test analysis', goal: 'test goal', steps, responseHint: 'say what happened', ...extra });
}

/** A sub-agent's `complete_step` report. */
export const complete = (output: Record<string, unknown>): ScriptedTurn => callTool('complete_step', output);

/** The model being unreachable. */
export const outage = (message = 'scripted outage'): ScriptedTurn => ({ error: new ModelError(message, 'unavailable') });

/** Runs `effect` when the model is called, then answers with `turn`. */
export function when(effect: (request: ModelRequest) => void, turn: ScriptedTurn): ScriptedTurn {
  return (request: ModelRequest) => {
    effect(request);
    return turn;
  };
}

/** Every call's purpose, in order ("planner", "notes-agent", "composer"…). */
export const purposes = (model: ScriptedModel): string[] => model.calls.map((call) => call.purpose ?? '?');

export const callsFor = (model: ScriptedModel, purpose: string): ModelRequest[] => model.calls.filter((call) => call.purpose === purpose);

function blockText(block: ContentBlock): string {
  if (block.type === 'text') return block.text;
  if (block.type === 'tool_result') return block.content;
  if (block.type === 'thinking') return block.thinking;
  if (block.type === 'redacted_thinking') return block.data;
  if (block.type === 'image' || block.type === 'document') return `[${block.type} ${block.mediaType}]`;
  if (block.type === 'server_tool_result') return `[${block.resultType}]`;
  return `${block.name} ${JSON.stringify(block.input)}`;
}

/** A message's content as text (tool calls and results included). */
export function contentText(content: string | ContentBlock[]): string {
  return typeof content === 'string' ? content : content.map(blockText).join('\n');
}

/** Everything a request showed the model: system blocks and every message. */
export function requestText(request: ModelRequest): string {
  return [...request.system.map((block) => block.text), ...request.messages.map((message) => contentText(message.content))].join('\n');
}

export const systemText = (request: ModelRequest): string => request.system.map((block) => block.text).join('\n');

/** The text of the request's last message. */
export function lastMessageText(request: ModelRequest): string {
  const last = request.messages[request.messages.length - 1];
  return last ? contentText(last.content) : '';
}

/** The tool results in a request's messages. */
export function toolResultsOf(request: ModelRequest): ToolResultBlock[] {
  return request.messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result')));
}

/** Store events as compact strings: "step_started step_1#0", "step_finished step_1#0 failed", "plan_finished failed". */
export function storeTrail(store: InMemoryPlanStore): string[] {
  return store.events.map((event) =>
    [event.kind, event.stepId !== undefined ? `${event.stepId}${event.attempt !== undefined ? `#${event.attempt}` : ''}` : undefined, event.status].filter(Boolean).join(' '),
  );
}
