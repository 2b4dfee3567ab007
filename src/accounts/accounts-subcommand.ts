import { parseTwilioAddress } from '../channels/phone-number.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../logging/logger.js';

/** What every subcommand gets: the configuration, the open database and a quiet logger. */
export interface AccountsContext {
  config: Config;
  database: Database;
  logger: Logger;
}

/** One `npm run accounts -- <name> …` subcommand; each group lives in its own file. */
export interface AccountsSubcommand {
  name: string;
  /** "--phone +15551234567 --id ID" */
  usage: string;
  summary: string;
  /** Option names and whether each takes a value (all strings here). */
  options: Record<string, { type: 'string' | 'boolean' }>;
  required: string[];
  /** Options of which exactly one must be given ("--phone or --existing"). */
  oneOf?: string[];
  /** Does the work and returns what to print; throws {@link CommandError} for a clear failure. */
  run(values: Record<string, string | boolean | undefined>, context: AccountsContext): Promise<string>;
}

/** A failure to print as it is (no stack), with exit status 1. */
export class CommandError extends Error {}

/**
 * The `--password` option's value: as given, or with `-`, the first line of standard input
 * (`printf '%s' "$PASSWORD" | npm run accounts -- add-imap … --password -`), so the secret
 * does not show in the process list or the shell's history.
 */
export async function passwordOption(value: string | boolean | undefined, input: AsyncIterable<Buffer | string> = process.stdin): Promise<string> {
  if (value !== '-') return String(value ?? '');
  let text = '';
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new CommandError('--password - reads the password from standard input, and it was empty.');
  return password;
}

/** `--phone` as E.164, or a clear error. */
export function phoneOption(value: string | boolean | undefined): string {
  const parsed = parseTwilioAddress(String(value ?? ''));
  if (!parsed || parsed.channel !== 'sms') throw new CommandError(`"${String(value)}" is not a phone number in international form, such as +15551234567.`);
  return parsed.phone;
}
