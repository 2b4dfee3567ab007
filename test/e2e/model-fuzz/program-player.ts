import type { RecordedAnthropicRequest, ScriptedAnthropicResponse, ScriptedContentBlock } from '../../fakes/fake-anthropic-server.js';
import type { ModelProgram, Move, ScriptedCall, ToolCatalog, Words } from './model-program.js';
import { LongText } from './long-text.js';

/** Replaces the fuzz's placeholders for real ids (`@@A.note@@`, `@@B.mail1@@`) in a string. */
export type Resolver = (text: string) => string;

type Queue = { moves: Move[]; next: number; role: 'planner' | 'agent' | 'composer' };

/** Server tools are offered by type, not called by the fuzz: they say nothing of which agent asks. */
const SERVER_TOOLS = new Set(['web_search', 'web_fetch']);

/**
 * Plays a {@link ModelProgram} as the fake Anthropic server's answers: each request is told
 * apart by who asks (a planning round offers create_plan, the composer's prompt says
 * `<composing>`, a step's task carries the `[fzN]` marker of its script, otherwise the agent
 * is known by its tools), and gets that role's next answer; once they run out, the program's
 * tail decides (a loop that never ends included). Counts what it played, for the summary.
 */
export class ProgramPlayer {
  private readonly queues = new Map<string, Queue>();
  private toolUseCounter = 0;
  /** Requests answered, by role. */
  readonly played = { planner: 0, agent: 0, composer: 0, other: 0 };

  constructor(
    private readonly program: ModelProgram,
    private readonly catalog: ToolCatalog,
    private readonly resolve: Resolver,
  ) {}

  readonly answer = (request: RecordedAnthropicRequest): ScriptedAnthropicResponse => {
    const names = request.toolNames().filter((name) => !SERVER_TOOLS.has(name));
    if (names.includes('create_plan')) return this.play(this.queue('planner', 'planner', this.program.planner));
    if (request.systemText().includes('<composing>')) return this.play(this.queue('composer', 'composer', this.program.composer));
    const marker = /<task>\s*\[fz(\d+)\]/.exec(request.lastUserText());
    const step = marker ? this.program.steps[Number(marker[1])] : undefined;
    if (step) return this.play(this.queue(`step${marker![1]}`, 'agent', step.moves));
    const agent = Object.entries(this.catalog.agents).find(([, tools]) => sameNames(tools, names))?.[0];
    if (agent) return this.play(this.queue(`agent:${agent}`, 'agent', this.program.agents[agent] ?? []));
    // Anything else (no role the program scripts) gets a plain answer.
    this.played.other += 1;
    return { text: 'OK.' };
  };

  private queue(key: string, role: Queue['role'], moves: Move[]): Queue {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { moves, next: 0, role };
      this.queues.set(key, queue);
    }
    return queue;
  }

  private play(queue: Queue): ScriptedAnthropicResponse {
    this.played[queue.role] += 1;
    const index = queue.next;
    queue.next += 1;
    const { moves } = queue;
    let move: Move | undefined = moves[index];
    if (!move) {
      switch (this.program.tail) {
        case 'repeat':
          move = moves.at(-1);
          break;
        case 'cycle':
          move = moves.length > 0 ? moves[index % moves.length] : undefined;
          break;
        case 'text':
          move = { kind: 'text', text: 'Okay.' };
          break;
        case 'empty':
          move = { kind: 'empty' };
          break;
        case 'finish':
          break;
      }
    }
    move ??= queue.role === 'agent' ? { kind: 'calls', calls: [{ name: 'complete_step', input: { summary: 'Done.' } }] } : { kind: 'text', text: 'Done.' };
    return this.response(move);
  }

  private response(move: Move): ScriptedAnthropicResponse {
    switch (move.kind) {
      case 'text':
        return { text: this.words(move.text) };
      case 'empty':
        return { content: [], stopReason: 'end_turn' };
      case 'refusal': {
        const text = this.words(move.text);
        return { content: text ? [{ type: 'text', text, citations: null }] : [], stopReason: 'refusal' };
      }
      case 'stop': {
        const text = this.words(move.text);
        const content: ScriptedContentBlock[] = text ? [{ type: 'text', text, citations: null }] : [];
        if (move.call) content.push(this.toolUse(move.call));
        return { content, stopReason: move.reason };
      }
      // As a 5.x model answers: signed thinking first, which the next request must hand back.
      case 'calls':
        return { toolCalls: move.calls.map((call) => ({ name: call.name, input: deepResolve(call.input, this.resolve) })), ...(move.text !== undefined ? { text: this.words(move.text) } : {}) };
      case 'plan':
        return { toolCalls: [{ name: 'create_plan', input: this.plan(move) }] };
      case 'error':
        return { error: { status: move.status } };
      case 'slow':
        return { delayMs: move.delayMs, then: this.response(move.then) };
    }
  }

  private words(words: Words): string {
    return this.resolve(typeof words === 'string' ? words : words.text());
  }

  /** create_plan's input: the program's steps, each task marked with its script's index. */
  private plan(move: Extract<Move, { kind: 'plan' }>): unknown {
    const scripts = this.program.steps;
    const count = move.fifty ? 50 : Math.min(move.take, scripts.length);
    const steps = Array.from({ length: count }, (_, index) => {
      const script = scripts[index % scripts.length]!;
      const dependsOn = move.wild ? script.dependsOn : index === 0 ? [] : [...new Set(script.dependsOn.map((dependency) => dependency % index))];
      return { id: `s${index + 1}`, agent: script.agent, task: `[fz${index % scripts.length}] ${script.task}`, dependsOn: dependsOn.map((dependency) => `s${dependency + 1}`) };
    });
    return { analysis: 'The user wants this.', goal: move.goal, steps };
  }

  private toolUse(call: ScriptedCall): ScriptedContentBlock {
    this.toolUseCounter += 1;
    return { type: 'tool_use', id: `toolu_fz${String(this.toolUseCounter).padStart(6, '0')}`, name: call.name, input: deepResolve(call.input, this.resolve), caller: { type: 'direct' } };
  }
}

function sameNames(left: string[], right: string[]): boolean {
  return left.length === right.length && left.every((name) => right.includes(name));
}

/** `value` with every string resolved (keys too: a placeholder may name a record's key). */
function deepResolve(value: unknown, resolve: Resolver): unknown {
  if (typeof value === 'string') return resolve(value);
  if (value instanceof LongText) return value.text();
  if (Array.isArray(value)) return value.map((item) => deepResolve(item, resolve));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [resolve(key), deepResolve(item, resolve)]));
  return value;
}

/**
 * Sends each request to the player of the user it is for, known by the name every role's
 * prompt carries (`<name>…</name>`), so several users' runs can share one fake server at
 * once. A name no player was registered under (the program renamed its user with
 * update_profile) is looked up with `rename`.
 */
export class PlayerRouter {
  private readonly players = new Map<string, ProgramPlayer>();

  constructor(private readonly rename: (name: string) => Promise<string | undefined>) {}

  register(name: string, player: ProgramPlayer): void {
    this.players.set(name, player);
  }

  clear(): void {
    this.players.clear();
  }

  readonly answer = async (request: RecordedAnthropicRequest): Promise<ScriptedAnthropicResponse> => {
    const name = /<name>([^<]*)<\/name>/.exec(request.systemText())?.[1];
    let player = name === undefined ? undefined : this.players.get(name);
    if (!player && name !== undefined) {
      const registered = await this.rename(name);
      player = registered === undefined ? undefined : this.players.get(registered);
    }
    return player ? player.answer(request) : { text: 'OK.' };
  };
}
