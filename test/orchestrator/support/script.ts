import type { ContentBlock, ModelRequest, ToolResultBlock } from '../../../src/model/model-client.js';
import { ScriptedModel as ScriptedModelClass, type ScriptedModel, type ScriptedTurn } from '../../../src/model/scripted-model.js';
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

/** Which requests a route answers: a purpose ("notes-agent", "composer"…), or any test of the request. */
export type RouteMatch = string | ((request: ModelRequest) => boolean);

/** The text of a request's first message: for a sub-agent, its task (the same on every call of its loop). */
export function taskText(request: ModelRequest): string {
  const first = request.messages[0];
  return first ? contentText(first.content) : '';
}

/** A sub-agent's calls for the step whose task contains `words`. */
export const forTask =
  (agent: string, words: string): RouteMatch =>
  (request) =>
    request.purpose === agent && taskText(request).includes(words);

/**
 * Scripted turns by who asks, for steps that run at once (which of them calls the model first
 * is not fixed): each route answers the requests it matches from its own queue, in order (the
 * first matching route takes a request). `model()` is a ScriptedModel answering from the
 * routes; a request no route matches, or one whose route ran dry, is a test bug and fails the
 * call with a message naming it. `unused()` names what was left over.
 */
export class RoutedTurns {
  private readonly routes: Array<{ match: RouteMatch; turns: ScriptedTurn[] }>;

  constructor(routes: Array<[match: RouteMatch, turns: ScriptedTurn[]]>) {
    this.routes = routes.map(([match, turns]) => ({ match, turns: [...turns] }));
  }

  /** A ScriptedModel that answers every call from the routes (at most as many calls as there are turns). */
  model(): ScriptedModel {
    const total = this.routes.reduce((sum, route) => sum + route.turns.length, 0);
    return new ScriptedModelClass(Array.from({ length: total }, () => (request: ModelRequest) => this.next(request)));
  }

  /** Routes with turns left over, by what they match. */
  unused(): string[] {
    return this.routes.filter((route) => route.turns.length > 0).map((route) => `${typeof route.match === 'string' ? route.match : 'a matcher'} ×${route.turns.length}`);
  }

  private next(request: ModelRequest): ScriptedTurn {
    const route = this.routes.find((candidate) => (typeof candidate.match === 'string' ? request.purpose === candidate.match : candidate.match(request)));
    const turn = route?.turns.shift();
    if (turn !== undefined) return turn;
    return { error: new ModelError(`RoutedTurns: no turn for a ${request.purpose ?? 'unlabelled'} call (${route ? 'its route ran dry' : 'no route matches it'})`, 'behaviour') };
  }
}

/**
 * Steps that must be running at once: each party's answer waits until every party has called
 * the model. Run one at a time they never answer (the first step waits until it times out,
 * and the test fails), so a test that passes proves they overlapped.
 */
export class Rendezvous {
  private readonly arrived = new Set<string>();
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly parties: string[]) {}

  /** `party`'s scripted turn, answered once all parties have arrived. */
  turn(party: string, turn: ScriptedTurn): ScriptedTurn {
    return async (request: ModelRequest) => {
      this.arrived.add(party);
      if (this.parties.every((name) => this.arrived.has(name))) for (const release of this.waiting.splice(0)) release();
      else {
        await new Promise<void>((resolve, reject) => {
          this.waiting.push(resolve);
          request.signal?.addEventListener('abort', () => reject(request.signal?.reason), { once: true });
        });
      }
      return turn;
    };
  }
}
