import type { ConversationSubject, Fact, UserContext } from '../../context/orchestrator-context.js';
import { DateTime } from 'luxon';
import { describeNow, formatTimeContextLine } from '../utility-tools/time-context.js';
import { dataSection, escapeXml } from './xml.js';
import { estimateTokens } from '../../shared/tokens.js';

/** `<current_time>`: the user's local time with UTC offset and weekday (seed 003). */
export function currentTimeSection(now: Date, timezone: string): string {
  return `<current_time>${formatTimeContextLine(describeNow(now, timezone))}</current_time>`;
}

/** `<user_context>`: who Herald is talking to (FR-9). */
export function userContextSection(user: UserContext, channel: 'sms' | 'whatsapp' | 'rcs'): string {
  const lines = [
    `  <name>${user.name ? escapeXml(user.name) : unknownName(user)}</name>`,
    `  <timezone>${escapeXml(user.timezone)}</timezone>`,
    ...tripLine(user),
    `  <language>the language of their latest message${user.language ? ` (when it has no words: ${escapeXml(user.language)})` : ''}</language>`,
    `  <channel>${channel}</channel>`,
  ];
  return `<user_context>\n${lines.join('\n')}\n</user_context>`;
}

/** `<trip>`: the zone is a trip's, going back home by itself after the return date (src/reminders/travel-trips.ts). */
export function tripLine(user: Pick<UserContext, 'trip'>): string[] {
  if (!user.trip) return [];
  return [`  <trip>travelling until ${escapeXml(user.trip.returnOn)} inclusive; then back to their home time zone, ${escapeXml(user.trip.homeTimezone)}</trip>`];
}

/**
 * What to say about a name Herald does not have: ask for it while onboarding; afterwards
 * just say so, since asking in every reply would nag (it may be among the saved facts).
 */
function unknownName(user: UserContext): string {
  return user.isNew ? '(unknown: ask for it)' : '(not saved; it may be among the facts in user_memory)';
}

/** `<user_memory>`: every saved fact, as XML (seed 000 buildMemoryXml), framed as the user's data ({@link dataSection}). */
export function memorySection(facts: Fact[], maxTokens = Number.POSITIVE_INFINITY): string {
  if (facts.length === 0) return '<user_memory>\n  (nothing saved yet)\n</user_memory>';
  const lines: string[] = [];
  let tokens = 0;
  for (const fact of facts) {
    const line = `  <fact id="${escapeXml(fact.id)}" category="${escapeXml(fact.category)}">${escapeXml(fact.content)}</fact>`;
    tokens += estimateTokens(line);
    if (tokens > maxTokens) break;
    lines.push(line);
  }
  // CTX-6: the prompt has a budget; say what was left out rather than cut silently.
  const omitted = facts.length - lines.length;
  if (omitted > 0) lines.push(`  <!-- ${omitted} more saved fact(s) not shown (prompt budget); memory-agent can list them with get_user_facts -->`);
  return dataSection('user_memory', lines.join('\n'));
}

/** Onboarding guidance for a user Herald does not know yet. */
export function onboardingSection(user: UserContext): string | undefined {
  if (!user.isNew) return undefined;
  return [
    '<onboarding>',
    'This person is new to Herald. Answer what they asked first. Then, in the same reply, briefly',
    `introduce yourself, ask what to call them, and confirm their time zone (${escapeXml(user.timezone)}, guessed from their`,
    'number) by naming it in plain words, e.g. "I have you on London time — right?".',
    '</onboarding>',
  ].join('\n');
}

/**
 * `<conversation_subject>`: what the user's message replies to, when Herald can tell: a
 * quoted message (WhatsApp), or a reminder just delivered, with its id so a task about
 * "it" names the reminder exactly.
 */
export function subjectSection(subject: ConversationSubject | undefined, timezone: string): string | undefined {
  if (!subject) return undefined;
  const sent = DateTime.fromJSDate(subject.sentAt, { zone: timezone }).toFormat("ccc d LLL, HH:mm");
  const how = subject.quoted ? 'The user replied by quoting this message of yours' : 'This reminder was just delivered to the user; their message most likely answers it';
  const body =
    subject.kind === 'reminder'
      ? `  <reminder id="${escapeXml(subject.reminderId)}" sent="${sent}">${escapeXml(subject.text)}</reminder>`
      : `  <message sent="${sent}">${escapeXml(subject.message.slice(0, 1000))}</message>`;
  // The reminder's words are the user's own, stored: data, like memory.
  return dataSection('conversation_subject', `${how}:\n${body}`);
}
