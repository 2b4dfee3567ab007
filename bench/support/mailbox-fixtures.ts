/**
 * What the email benchmarks (bench/email.ts on Dovecot, bench/gmail.ts on the fake Gmail)
 * share: the same mailbox contents, the same timing loop, and tool calls as the agent makes
 * them, so their figures compare.
 */
import type { ToolContext, ToolDefinition } from '../../src/tools/tool.js';
import { runTool, sampleMs } from './sampling.js';

/** Messages in the big mailbox, unread ones in the small one, measured runs and warm-up runs. */
export const MESSAGES = 10_000;
export const UNREAD = 50;
export const RUNS = 30;
export const WARM_UP = 3;

export const senders = ['Dana Levi <dana@example.com>', 'Bank <statements@bank.example>', 'Shop <deals@shop.example>', 'Omer <omer@work.example>', 'Newsletter <news@letters.example>', 'Carol <carol@example.org>', 'GitHub <noreply@github.example>', 'Airline <trips@air.example>'];
const topics = ['Trip dates', 'Your statement is ready', 'Weekly deals', 'Quarterly plan', 'This week in tech', 'Dinner on Friday?', 'Pull request merged', 'Your booking'];

/** A realistic mail of 1-3 KB: plain text, or HTML only for every fifth. */
export function mail(index: number, date: Date, to: string): string {
  const from = senders[index % senders.length]!;
  const subject = `${topics[index % topics.length]} #${index}`;
  const paragraph = `Hello, this is message ${index}. ${'Here are some more details about the plan, the dates and the people involved. '.repeat(8 + (index % 20))}`;
  const headers = [`From: ${from}`, `To: ${to}`, `Subject: ${subject}`, `Date: ${date.toUTCString()}`, `Message-ID: <bench-${index}@bench.example>`, 'MIME-Version: 1.0'];
  if (index % 5 === 0) return [...headers, 'Content-Type: text/html; charset=utf-8', '', `<html><body><p>${paragraph}</p><div style="display:none">hidden ${index}</div></body></html>`, ''].join('\r\n');
  return [...headers, 'Content-Type: text/plain; charset=utf-8', '', paragraph, '', 'Best,', from.split(' ')[0], ''].join('\r\n');
}

/** {@link sampleMs} with the email benchmarks' warm-up. */
export function timed(runs: number, action: (index: number) => Promise<unknown>): Promise<number[]> {
  return sampleMs(runs, WARM_UP, action);
}

/** A mailbox tool's text result, run as the agent's loop does. */
export async function call(tool: ToolDefinition, input: unknown, context: ToolContext): Promise<string> {
  const output = await runTool(tool, input, context);
  if (typeof output !== 'string') throw new Error(`${tool.name} did not read the mailbox: ${JSON.stringify(output)}`);
  return output;
}
