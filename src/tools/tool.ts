import type { z } from 'zod';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../logging/logger.js';

/** Who a tool runs for, and the injected facilities it may use. */
export interface ToolContext {
  userId: string;
  /** The user's IANA time zone; every date a tool reads or writes is in it. */
  timezone: string;
  clock: Clock;
  logger: Logger;
  /** Aborted when the step or plan running the tool times out. */
  signal?: AbortSignal | undefined;
  /** True when the user has said YES to this exact call: a tool that asks for confirmation acts now. */
  confirmed?: boolean | undefined;
  /** The language Herald's own words in a question or answer should be in (src/texts); default English. */
  language?: string | undefined;
  /** The country of the user's number (ISO 3166-1 alpha-2), for holidays and how they write dates. */
  country?: string | undefined;
  /**
   * Reports what a paid service other than the model cost this turn (embeddings): it is
   * added to the turn's cost, and so to the user's daily budget. Absent outside a turn.
   */
  recordCost?: ((cost: ServiceCost) => void) | undefined;
}

/** One paid call a tool made to a service other than the model. */
interface ServiceCost {
  /** e.g. "embeddings:voyage-3.5-lite". */
  service: string;
  /** Tokens billed. */
  tokens: number;
  costUsd: number;
}

/**
 * What a tool asks the user before it acts (docs/ARCHITECTURE.md "The orchestrator", step 6). `question` goes into the
 * reply ('Delete "Dentist" on Fri 14 Mar, 3:00 PM?'); `done` is the reply after the YES
 * when the action succeeded ('Deleted "Dentist" (Fri 14 Mar, 3:00 PM).').
 */
export interface ConfirmationRequest {
  question: string;
  done: string;
  /**
   * The exact arguments YES runs, when they must be pinned down further than the call's
   * own: the event the question names, by id and version, rather than the words that
   * found it (which might find another one later). Must satisfy the tool's schema. Default:
   * the call's arguments.
   */
  input?: unknown;
}

/**
 * Several items fit the words a call gave ("the dentist reminder", and there are two), or
 * one only loosely: Herald itself numbers them in the question it sends ("Which one? 1) …
 * 2) …", or "Did you mean …?") and keeps them, so the user's "2" runs the call on that one
 * without any model. Each candidate carries the exact arguments that run it (its id
 * instead of the words).
 */
export interface ChoiceRequest {
  candidates: Array<{
    /** How the user tells it: 'Call mom, Thu 10:00'. */
    label: string;
    /** The call's arguments pinned to this candidate; must satisfy the tool's schema. */
    input: unknown;
  }>;
  /** A single loose match ("dentsit" for "Dentist"): asked as "Did you mean …?". */
  weak?: boolean | undefined;
}

/**
 * What a tool hands back. Expected failures (nothing matched, a bad date) are results
 * with `isError: true` and a message the model can act on; only bugs throw. A failure
 * may carry a `choice` (several matched: Herald asks which) or say the item it was
 * pinned to is `gone` (deleted elsewhere since).
 */
export type ToolResult =
  | { isError: false; output: unknown }
  | { isError: true; error: string; choice?: ChoiceRequest | undefined; gone?: boolean | undefined };

/**
 * A tool a model may call. The zod schema is the single source of truth: it is sent to
 * the model as JSON Schema and validates the model's arguments before `run` sees them.
 */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  inputSchema: Schema;
  /**
   * What the model is shown instead of `inputSchema`, when that adds per-call refinements
   * (checks against this turn's limits) that JSON Schema cannot express anyway: a schema
   * built once has its JSON Schema generated once, not on every call. Default: `inputSchema`.
   */
  modelSchema?: z.ZodType;
  /** True when the tool creates, changes or deletes something (checked by the verifier). */
  mutates: boolean;
  /**
   * For destructive or outward actions: what to ask the user first, or undefined when this
   * call needs no confirmation (deleting needs it, creating a private event does not). A
   * call that needs it does not run: it is held, with its exact arguments, until the
   * user's YES runs it (with `context.confirmed`), once.
   */
  confirmation?(input: z.output<Schema>, context: ToolContext): Promise<ConfirmationRequest | undefined>;
  run(input: z.output<Schema>, context: ToolContext): Promise<ToolResult>;
  /**
   * What the step's records (StepRun rows, kept for debugging) keep of a successful output
   * that holds other people's private content (mail): the model reads the output in full,
   * the database keeps only this. Default: the output itself.
   */
  recordOutput?(output: unknown): unknown;
}

/** Declares a tool with its input type inferred from its schema. */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): ToolDefinition<Schema> {
  return definition;
}

/** A successful result. */
export const ok = (output: unknown): ToolResult => ({ isError: false, output });

/** An expected failure the model should read and act on. */
export const toolError = (error: string, extra: { choice?: ChoiceRequest | undefined; gone?: boolean | undefined } = {}): ToolResult => ({
  isError: true,
  error,
  ...(extra.choice && extra.choice.candidates.length > 0 ? { choice: extra.choice } : {}),
  ...(extra.gone ? { gone: true } : {}),
});
