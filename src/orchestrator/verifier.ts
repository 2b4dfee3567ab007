import type { ToolCallRecord } from '../agents/tool-loop.js';
import type { AgentOutput } from './plan-schema.js';

const kinds = ['created', 'updated', 'deleted'] as const;
type ChangeKind = (typeof kinds)[number];
type ChangedItem = NonNullable<AgentOutput['created']>[number];

/**
 * Counts what successful mutating tool calls actually did, by the `effect` they reported
 * ("created", "updated", "deleted", "unchanged") or, for batch tools, their `effects` counts.
 */
export function actualEffects(toolCalls: ToolCallRecord[]): Record<ChangeKind, number> & { unknown: number } {
  const counts = { created: 0, updated: 0, deleted: 0, unknown: 0 };
  for (const entry of ledger(toolCalls)) counts[entry.kind] += 1;
  return counts;
}

/** One change a tool call made, as the ledger records it. */
interface LedgerEntry {
  kind: ChangeKind | 'unknown';
  item: ChangedItem;
}

/**
 * The ledger: every change the step's successful mutating tool calls reported, in order.
 * A batch tool ("add three items") reports counts; each counted change becomes an entry,
 * named after the matching input item when there is one.
 */
function ledger(toolCalls: ToolCallRecord[]): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const call of toolCalls) {
    if (!call.mutates || call.isError) continue;
    const result = call.result as { effect?: unknown; effects?: Partial<Record<ChangeKind, number>> } | null;
    if (result?.effects) {
      const names = inputItems(call.input);
      for (const kind of kinds) {
        for (let index = 0; index < (result.effects[kind] ?? 0); index += 1) {
          entries.push({ kind, item: { description: names[index] ?? `${call.name} (${kind})` } });
        }
      }
      continue;
    }
    const effect = result?.effect;
    // Nothing changed yet: unchanged, or held for the user's YES.
    if (effect === 'unchanged' || effect === 'pending_confirmation') continue;
    const item = { ...idOf(call.result), description: describeCall(call) };
    entries.push({ kind: effect === 'created' || effect === 'updated' || effect === 'deleted' ? effect : 'unknown', item });
  }
  return entries;
}

/**
 * Checks a step's report against the ledger and completes it. An agent never claims an
 * action it did not perform: claiming more created, updated or deleted items than the
 * tools did (beyond the calls that reported no effect) is a mismatch. Claiming fewer is
 * only an incomplete report: the missing items are filled in from the ledger, so the
 * orchestrator and the user hear about every change that really happened.
 */
export function reconcileWithLedger(output: AgentOutput, toolCalls: ToolCallRecord[]): { output: AgentOutput; mismatch?: string } {
  const entries = ledger(toolCalls);
  let slack = entries.filter((entry) => entry.kind === 'unknown').length;
  const problems: string[] = [];
  const completed: AgentOutput = { ...output };
  for (const kind of kinds) {
    const actual = entries.filter((entry) => entry.kind === kind).map((entry) => entry.item);
    const claimed = output[kind] ?? [];
    const difference = claimed.length - actual.length;
    if (difference > 0) {
      if (difference <= slack) {
        slack -= difference;
        continue;
      }
      problems.push(`claimed ${claimed.length} ${kind} but ${actual.length} tool call(s) actually ${kind} something`);
    } else if (difference < 0) {
      completed[kind] = [...claimed, ...actual.slice(claimed.length)];
    }
  }
  if (problems.length > 0) return { output, mismatch: `The report does not match what was done: ${problems.join('; ')}.` };
  return { output: completed };
}

/**
 * The report of an agent that ended with plain text instead of `complete_step`: its text
 * is the summary (and the reply, when it was asked for one), and its changes are the
 * ledger's, not its own words.
 */
export function reportFromLedger(text: string, toolCalls: ToolCallRecord[], writeReply: boolean): AgentOutput {
  const base: AgentOutput = { summary: text || 'Finished without a written report.', ...(writeReply && text ? { reply: text } : {}) };
  return reconcileWithLedger(base, toolCalls).output;
}

/** Returns why the claims do not hold, or undefined when they do (see {@link reconcileWithLedger}). */
export function verifyClaims(output: AgentOutput, toolCalls: ToolCallRecord[]): string | undefined {
  return reconcileWithLedger(output, toolCalls).mismatch;
}

/** The names of a batch call's items (`items: ["milk", "eggs"]`), to describe its changes. */
function inputItems(input: unknown): string[] {
  const items = (input as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.filter((item): item is string => typeof item === 'string') : [];
}

/** A short description of what a call changed, from its input's most telling field. */
function describeCall(call: ToolCallRecord): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  for (const key of ['text', 'content', 'title', 'name', 'subject', 'description', 'match']) {
    const value = input[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 500);
  }
  return call.name;
}

/** The id of the changed thing, when the result names one (`{ reminder: { id } }`, `{ fact: { id } }`). */
function idOf(result: unknown): { id?: string } {
  if (!result || typeof result !== 'object') return {};
  const record = result as Record<string, unknown>;
  if (typeof record.id === 'string') return { id: record.id };
  for (const value of Object.values(record)) {
    if (value && typeof value === 'object' && typeof (value as Record<string, unknown>).id === 'string') return { id: (value as { id: string }).id };
  }
  return {};
}
