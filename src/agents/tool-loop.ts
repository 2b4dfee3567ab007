import { addUsage, emptyUsage, toolCallsOf, responseText, webSourcesOf, type ModelClient, type ModelMessage, type ModelRequest, type TokenUsage, type ToolResultBlock, type WebSource } from '../model/model-client.js';
import type { KeyedToolCalls } from '../tools/keyed-calls.js';
import type { ChoiceRequest, ConfirmationRequest, ToolContext, ToolDefinition, ToolResult } from '../tools/tool.js';
import { describeValidationError, toolSpecOf } from '../tools/tool-spec.js';
import { describeError, HeraldError } from '../shared/errors.js';
import { stableJson } from '../shared/stable-json.js';

export { stableJson } from '../shared/stable-json.js';

/** One tool call as it happened, for verification and the step record. */
export interface ToolCallRecord {
  name: string;
  input: unknown;
  isError: boolean;
  mutates: boolean;
  /** The tool's output (success) or error message. */
  result: unknown;
  /** Cut off by a timeout while running: it may or may not have taken effect. */
  interrupted?: boolean;
  /** Held for the user's YES instead of run (the tool asked for confirmation). */
  pendingConfirmation?: ConfirmationRequest;
  /** Several items fit: the candidates Herald numbers in its "Which one?" (the call did nothing). */
  pendingChoice?: ChoiceRequest;
  /** Not run: this request had already made this exact call; `result` is what it returned then. */
  replayed?: boolean;
}

/**
 * What a loop has done so far, filled in as it runs: when the loop throws (a timeout
 * aborts it mid-step) the caller still knows which tools ran and what the calls cost.
 */
export interface ToolLoopProgress {
  toolCalls: ToolCallRecord[];
  usage: TokenUsage;
  modelCalls: number;
}

/** Why a tool loop ended. */
type ToolLoopStop =
  /** The model called the finishing tool with valid input. */
  | 'finished'
  /** The model answered with text and no tool call. */
  | 'text'
  /** The same call with the same arguments twice in a row. */
  | 'stalled'
  /** The same invalid input (bad arguments, or an unknown tool) twice in a row: the model is stuck on it. */
  | 'repeated_invalid_input'
  /** The finishing tool was called with invalid input more often than allowed. */
  | 'invalid_finish'
  /** The model called the hand-off tool with valid input: the request is someone else's. */
  | 'handed_off'
  /** Too many model calls. */
  | 'iteration_limit';

/** What a tool loop produced. */
export interface ToolLoopResult {
  stop: ToolLoopStop;
  /** The finishing tool's validated input, when `stop` is "finished". */
  finish?: unknown;
  /** Why the last finishing call was rejected, when `stop` is "invalid_finish". */
  finishError?: string;
  /** The hand-off tool's validated input, when `stop` is "handed_off". */
  handOff?: unknown;
  /** What was wrong with the input the model repeated, when `stop` is "repeated_invalid_input". */
  inputError?: string;
  text: string;
  toolCalls: ToolCallRecord[];
  usage: TokenUsage;
  modelCalls: number;
  /** Web pages the model's text cited over the whole loop (web search, web fetch), in order. */
  sources: WebSource[];
}

/** What to run. */
export interface ToolLoopOptions {
  model: ModelClient;
  request: Omit<ModelRequest, 'messages' | 'tools' | 'signal'>;
  messages: ModelMessage[];
  tools: ToolDefinition[];
  /** A tool that ends the loop when called with valid input (its input is the result). */
  finishTool?: ToolDefinition;
  /**
   * A tool that gives the request to someone else (the light planner's hand-off to the
   * planner): called with valid input, it ends the loop at once and nothing else in that
   * response runs. Invalid input goes back to the model like any tool's.
   */
  handOffTool?: ToolDefinition;
  /** How many invalid finishing calls are sent back for correction before giving up (default: no limit). */
  maxFinishRejections?: number;
  toolContext: ToolContext;
  maxIterations: number;
  signal?: AbortSignal;
  /** Kept up to date while the loop runs (see {@link ToolLoopProgress}). */
  progress?: ToolLoopProgress;
  /**
   * Mutating calls run through it (src/tool-calls): a call the request already made (an
   * earlier attempt, a replanned step, the turn run again after a crash) is not made twice.
   * Absent: they just run.
   */
  keyedCalls?: KeyedToolCalls;
}

/**
 * The agent loop: call the model, run the tools it asks for, give it the results, and
 * repeat until it answers in text or calls the finishing tool. Only the listed tools can
 * run (FR-4). Arguments are validated by each tool's zod schema before it runs; a tool
 * that throws, or is given bad arguments, becomes an error result the model can react
 * to. The same call with the same arguments twice in a row ends the loop as stalled, or,
 * when that input was refused the first time, as `repeated_invalid_input`. Thinking
 * blocks, and the blocks of server tools the API ran itself (web search and fetch), are
 * handed back with the response, unchanged and in order, as the API requires within a tool
 * loop; a turn the API paused (`pause_turn`) is sent back to be continued.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  if (options.finishTool) byName.set(options.finishTool.name, options.finishTool);
  if (options.handOffTool) byName.set(options.handOffTool.name, options.handOffTool);
  const specs = [...byName.values()].map(toolSpecOf);
  const messages = [...options.messages];
  const progress: ToolLoopProgress = options.progress ?? { toolCalls: [], usage: emptyUsage(), modelCalls: 0 };
  const toolCalls = progress.toolCalls;
  let usage = emptyUsage();
  let modelCalls = 0;
  let previousSignatures = new Set<string>();
  // The previous response's calls that were refused before running, with why.
  let previousInvalid = new Map<string, string>();
  // Identical calls so far, so a deliberate repeat ("add water" twice) is keyed apart from the first.
  const occurrences = new Map<string, number>();
  let finishRejections = 0;
  let lastFinishError: string | undefined;
  const sources: WebSource[] = [];

  while (modelCalls < options.maxIterations) {
    options.signal?.throwIfAborted();
    modelCalls += 1;
    progress.modelCalls = modelCalls;
    // A snapshot: the loop appends to its transcript after the call, and a client (a
    // retrying wrapper, a test fake) may still hold this request.
    const response = await untilAborted(
      options.model.generate({ ...options.request, messages: [...messages], tools: specs, ...(options.signal ? { signal: options.signal } : {}) }),
      options.signal,
    );
    usage = addUsage(usage, response.usage);
    progress.usage = usage;
    for (const source of webSourcesOf(response.content)) if (!sources.some((known) => known.url === source.url)) sources.push(source);
    const calls = toolCallsOf(response);
    const text = responseText(response);
    if (calls.length === 0 && response.stopReason === 'pause_turn') {
      // The API paused a long server-tool turn (web search): sending the response back as it
      // is lets the model carry on from where it stopped.
      messages.push({ role: 'assistant', content: [...response.content] });
      continue;
    }
    if (calls.length === 0) return { stop: 'text', text, toolCalls, usage, modelCalls, sources };
    const handOff = handOffIn(calls, options.handOffTool);
    if (handOff.input !== undefined) return { stop: 'handed_off', handOff: handOff.input, text, toolCalls, usage, modelCalls, sources };

    const signatureOf = (call: { name: string; input: unknown }) => `${call.name}:${stableJson(call.input)}`;
    const signatures = new Set(calls.map(signatureOf));
    if (calls.every((call) => previousSignatures.has(signatureOf(call)))) {
      // Repeating input that was just refused will be refused again: no point correcting further.
      const refused = calls.map((call) => previousInvalid.get(signatureOf(call)));
      if (refused.every((error) => error !== undefined)) {
        return { stop: 'repeated_invalid_input', inputError: refused[0], text, toolCalls, usage, modelCalls, sources };
      }
      return { stop: 'stalled', text, toolCalls, usage, modelCalls, sources };
    }
    previousSignatures = signatures;
    previousInvalid = new Map();

    const results: ToolResultBlock[] = [];
    let finish: { input: unknown } | undefined;
    // Domain tools first, in the order asked; the finishing call is judged after them,
    // so a report written alongside its actions is checked against their outcomes.
    for (const call of calls) {
      if (call.name === options.finishTool?.name) continue;
      const refusal = handOff.refused.get(call.id);
      if (refusal !== undefined) {
        // Valid input ended the loop above: this hand-off's input was invalid.
        previousInvalid.set(signatureOf(call), refusal);
        results.push({ type: 'tool_result', toolUseId: call.id, content: refusal, isError: true });
        continue;
      }
      const occurrence = occurrences.get(signatureOf(call)) ?? 0;
      occurrences.set(signatureOf(call), occurrence + 1);
      const outcome = await runOne(byName.get(call.name), call.name, call.input, occurrence, options);
      if (outcome.refused) previousInvalid.set(signatureOf(call), outcome.content);
      toolCalls.push(outcome.record);
      results.push({ type: 'tool_result', toolUseId: call.id, content: outcome.content, isError: outcome.record.isError });
    }
    for (const call of calls) {
      if (call.name !== options.finishTool?.name) continue;
      const parsed = options.finishTool.inputSchema.safeParse(call.input);
      if (parsed.success && finish === undefined) {
        finish = { input: parsed.data };
        results.push({ type: 'tool_result', toolUseId: call.id, content: 'Recorded.' });
      } else {
        const message = parsed.success ? 'Report only once.' : `Invalid input: ${describeValidationError(parsed.error)}. Call ${call.name} again with corrected input.`;
        if (!parsed.success) {
          finishRejections += 1;
          lastFinishError = describeValidationError(parsed.error);
          previousInvalid.set(signatureOf(call), message);
        }
        results.push({ type: 'tool_result', toolUseId: call.id, content: message, isError: true });
      }
    }
    if (finish) return { stop: 'finished', finish: finish.input, text, toolCalls, usage, modelCalls, sources };
    if (finishRejections > (options.maxFinishRejections ?? Number.POSITIVE_INFINITY)) {
      return { stop: 'invalid_finish', finishError: lastFinishError ?? 'invalid input', text, toolCalls, usage, modelCalls, sources };
    }
    // The whole response, thinking blocks included, exactly as it came: the API verifies them.
    messages.push({ role: 'assistant', content: [...response.content] });
    messages.push({ role: 'user', content: results });
  }
  return { stop: 'iteration_limit', text: '', toolCalls, usage, modelCalls, sources };
}

/** The hand-off calls in one response: the first valid one's parsed input, and why each invalid one was refused, by call id. */
function handOffIn(calls: Array<{ id: string; name: string; input: unknown }>, tool: ToolDefinition | undefined): { input?: unknown; refused: Map<string, string> } {
  const refused = new Map<string, string>();
  if (!tool) return { refused };
  for (const call of calls) {
    if (call.name !== tool.name) continue;
    const parsed = tool.inputSchema.safeParse(call.input);
    if (parsed.success) return { input: parsed.data, refused };
    refused.set(call.id, `Invalid input: ${describeValidationError(parsed.error)}. Call ${call.name} again with corrected input.`);
  }
  return { refused };
}

async function runOne(
  tool: ToolDefinition | undefined,
  name: string,
  input: unknown,
  occurrence: number,
  options: ToolLoopOptions,
): Promise<{ record: ToolCallRecord; content: string; refused?: true }> {
  if (!tool) {
    const message = `The tool "${name}" is not available to you. Available: ${options.tools.map((candidate) => candidate.name).join(', ') || 'none'}.`;
    return { record: { name, input, isError: true, mutates: false, result: message }, content: message, refused: true };
  }
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) {
    const message = `Invalid arguments for ${name}: ${describeValidationError(parsed.error)}`;
    return { record: { name, input, isError: true, mutates: tool.mutates, result: message }, content: message, refused: true };
  }
  let result: ToolResult;
  try {
    if (tool.confirmation && !options.toolContext.confirmed) {
      // Destructive or outward: held, with these exact arguments, until the user says YES.
      const request = await untilAborted(tool.confirmation(parsed.data, options.toolContext), options.signal);
      if (request) return held(name, parsed.data, tool.mutates, request);
    }
    const keep = (output: unknown) => (tool.recordOutput ? tool.recordOutput(output) : output);
    const execute = () => tool.run(parsed.data, options.toolContext);
    // A tool that ignores the signal cannot hold the step past its timeout (C-5, C-1).
    const keyed = tool.mutates && options.keyedCalls ? await untilAborted(options.keyedCalls.run({ tool: name, input: parsed.data, occurrence, keep, signal: options.signal }, execute), options.signal) : { kind: 'ran' as const, result: await untilAborted(execute(), options.signal) };
    if (keyed.kind === 'replayed') {
      return { record: { name, input: parsed.data, isError: false, mutates: true, result: keyed.output, replayed: true }, content: typeof keyed.output === 'string' ? keyed.output : JSON.stringify(keyed.output) };
    }
    result = keyed.kind === 'ran' ? keyed.result : { isError: true, error: UNCERTAIN_CALL };
  } catch (error) {
    // An unexpected throw is still the tool's failure, reported to the model, not a crash.
    if (options.signal?.aborted) {
      // Cut off mid-run: record it, since a change it started may have happened.
      options.progress?.toolCalls.push({ name, input: parsed.data, isError: true, mutates: tool.mutates, result: 'interrupted by a timeout', interrupted: true });
      throw error;
    }
    const message = error instanceof HeraldError ? error.message : `The tool failed: ${describeError(error)}`;
    options.toolContext.logger.warn({ tool: name, error: describeError(error) }, 'tool threw; returned to the model as an error result');
    result = { isError: true, error: message };
  }
  if (result.isError) {
    return { record: { name, input: parsed.data, isError: true, mutates: tool.mutates, result: result.error, ...(result.choice ? { pendingChoice: result.choice } : {}) }, content: result.error };
  }
  return {
    record: { name, input: parsed.data, isError: false, mutates: tool.mutates, result: tool.recordOutput ? tool.recordOutput(result.output) : result.output },
    content: typeof result.output === 'string' ? result.output : JSON.stringify(result.output),
  };
}

/** What the agent is told when an earlier run of its exact call was cut off before it reported back. */
const UNCERTAIN_CALL =
  'Not done now: this exact call was already started for this message by an earlier attempt that was cut off, so it may have taken effect. Look it up first; make the call again only if it did not happen.';

/** A call held for the user's YES: recorded as such (with the arguments YES will run), and reported to the model as not done. */
function held(name: string, input: unknown, mutates: boolean, request: ConfirmationRequest): { record: ToolCallRecord; content: string } {
  const result = { effect: 'pending_confirmation', question: request.question };
  const { input: pinned, ...confirmation } = request;
  return {
    record: { name, input: pinned ?? input, isError: false, mutates, result, pendingConfirmation: confirmation },
    content: JSON.stringify({
      ...result,
      status: 'NOT done yet: it needs the user\'s YES. Herald adds the question to the reply itself. Do not report it as done; say it awaits their confirmation.',
    }),
  };
}

/**
 * `work`, or a rejection with the signal's reason as soon as it is aborted, whichever comes
 * first: timeouts stop the loop even when the work in flight does not listen to the signal.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's own reason (a TimeoutError, the caller's error): callers tell timeouts by it
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {}); // it may still settle later; nobody is waiting for it
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's own reason, as above
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the work's own rejection, passed on unchanged
        reject(error);
      },
    );
  });
}
