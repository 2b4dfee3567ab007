import type { UserContext } from '../../context/orchestrator-context.js';
import type { SystemBlock } from '../../model/model-client.js';
import type { ExecutionPlan } from '../plan-state.js';
import { baseInstructions } from './base-instructions.js';
import { dataSection, escapeXml } from './xml.js';

const compositionRules = `<composing>
You are writing Herald's one reply after carrying out the user's request.
- Say what was done, in plain words, and clearly what could not be done (and, if useful, what they can do).
- Never mention steps, agents, tools, plans, retries or errors by their technical names.
- One short text message: usually one to three sentences.
- Include any link a result contains, exactly as given.
- When a result's Data holds text made for the user (a draft, an answer), pass it on as written.
</composing>`;

/** The composer's system prompt: stable rules (cached), then who the user is. */
export function composerSystemPrompt(user: UserContext, replyLanguage: string): SystemBlock[] {
  const userPart = `<user_context>\n  <name>${user.name ? escapeXml(user.name) : '(unknown)'}</name>\n  <reply_language>${escapeXml(replyLanguage)}</reply_language>\n</user_context>`;
  return [{ text: `${baseInstructions}\n\n${compositionRules}`, cache: true }, { text: userPart }];
}

/** How much of one step's `data` the composer is shown (the prompt stays small). */
const DATA_CHARACTERS = 2000;

/**
 * A completed step's `data` as the composer reads it: what the step produced (a draft, the
 * facts found, the items listed). Without it, a step whose work IS text (general-agent
 * writing a message) would reach the reply only as its one-line summary.
 */
function dataLine(data: unknown): string {
  if (data === undefined || data === null) return '';
  if (typeof data === 'object' && Object.keys(data).length === 0) return '';
  const json = JSON.stringify(data);
  const shown = json.length > DATA_CHARACTERS ? `${json.slice(0, DATA_CHARACTERS - 40)}…[truncated ${json.length - DATA_CHARACTERS + 40} characters]` : json;
  return `\n    Data: ${escapeXml(shown)}`;
}

/** The composer's input: the request and every step's outcome. */
export function compositionRequest(userMessage: string, plan: ExecutionPlan, endedBy?: string): string {
  const steps = plan.steps.map((step) => {
    const result = step.result;
    const detail =
      step.status === 'completed'
        ? `Result: ${escapeXml(result?.output?.summary ?? '')}${dataLine(result?.output?.data)}${result?.output?.reply ? `\n    Suggested wording: ${escapeXml(result.output.reply)}` : ''}`
        : step.status === 'failed'
          ? `Failed: ${escapeXml(result?.error ?? 'unknown error')}`
          : 'Not done.';
    return `  <outcome status="${step.status}">${escapeXml(step.task)}\n    ${detail}</outcome>`;
  });
  return [
    `<user_message>\n${escapeXml(userMessage)}\n</user_message>`,
    `<goal>${escapeXml(plan.goal)}</goal>`,
    plan.responseHint ? `<response_hint>${escapeXml(plan.responseHint)}</response_hint>` : '',
    dataSection('outcomes', steps.join('\n')),
    endedBy ? `<note>${escapeXml(endedBy)}</note>` : '',
    'Write the reply now.',
  ]
    .filter(Boolean)
    .join('\n\n');
}
