import type { FactService, FactView } from '../../memory/fact-service.js';
import type { Clock } from '../../shared/clock.js';
import { say } from '../../texts/texts.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/** "What do you know about me", in each language Herald has texts in. */
const WHAT_DO_YOU_KNOW =
  /^(?:what do you (?:know|remember) about me|what have you (?:learned|learnt) about me|qu[ée] sabes (?:de|sobre) m[ií]|que sais[- ]tu (?:de|sur) moi|was wei[ßs]t du [üu]ber mich|o que (?:voc[êe] sabe|sabes) (?:sobre|de) mim|что ты (?:знаешь|помнишь) обо мне|מה אתה יודע עליי?|מה את יודעת עליי?|ماذا تعرف عني)$/iu;
/** "Forget that" / "forget what I just said": the fact written last, and nothing learned from what they said so far. */
const FORGET_THAT = /^(?:please )?forget (?:that|what i (?:just )?said)(?: please)?$/i;
/** "Forget where I work", "forget my sister's name", "forget that I'm vegetarian". */
const FORGET_ABOUT = /^(?:please )?forget (?:about )?(?:that )?(.{2,80}?)(?: please)?$/i;
/** Words that say the user means something other than a fact (a reminder, a list…): the planner's. */
const NOT_A_FACT = /\b(?:reminders?|lists?|events?|meetings?|notes?|e-?mails?|messages?|routines?|it|everything|all)\b/i;
const STOP_WORDS = new Set(['i', 'im', 'my', 'me', 'a', 'an', 'the', 'that', 'is', 'am', 'are', 'was', 'of', 'to', 'at', 'in', 'on', 'for', 'about', 'what', 'who', 'name', 's']);
/** Phrases that name a category rather than words of the fact. */
const CATEGORY_PHRASES: Array<[RegExp, string]> = [
  [/\b(where i work|my (job|work|employer|office|company))\b/i, 'work'],
  [/\b(my (diet|food|preferences))\b/i, 'preferences'],
  [/\b(my (routine|schedule|habits))\b/i, 'routine'],
];
/** How recent a fact must be for "forget that" to mean it. */
const FORGET_THAT_WINDOW_MS = 30 * 60 * 1000;

/**
 * The user in control of what Herald remembers (issue 21 item 6), without a model: "what do
 * you know about me" lists every fact, the ones learned from conversation marked; "forget
 * that" removes the fact written last (within half an hour) and keeps what they said so far
 * from being learned; "forget where I work" removes the facts that match. A "forget …" that
 * matches no fact, or names a reminder or a list, goes to the planner as before.
 */
export function memoryAnswer(deps: { facts: FactService; learning: { skipUnread(userId: string): Promise<void> }; clock: Clock }): TurnAnswer {
  return {
    name: 'memory',
    async answer(turn) {
      if (turn.carriesMedia) return undefined;
      const text = turn.text.trim().replace(/(?<![?!.。])[?!.。]+$/u, '').replace(/\s+/g, ' ').replace(/[’']/g, "'");
      if (WHAT_DO_YOU_KNOW.test(text)) {
        const facts = await deps.facts.list(turn.user.id);
        if (facts.length === 0) return withoutModel({ reply: say(turn.language, 'memoryEmpty') });
        const lines = facts.map((fact) => `- ${fact.content}${fact.learned ? ` ${say(turn.language, 'memoryLearned')}` : ''}`);
        return withoutModel({ reply: [say(turn.language, 'memoryIntro'), ...lines, say(turn.language, 'memoryOutro')].join('\n') });
      }
      if (FORGET_THAT.test(text)) {
        const [latest] = await deps.facts.writtenSince(turn.user.id, new Date(deps.clock.now().getTime() - FORGET_THAT_WINDOW_MS));
        await deps.learning.skipUnread(turn.user.id);
        if (!latest) return withoutModel({ reply: say(turn.language, 'memoryWontKeep') });
        await deps.facts.removeMany(turn.user.id, [latest.id]);
        turn.logger.info({ event: 'facts_forgotten', count: 1 }, 'forgot the latest fact without a model');
        return withoutModel({ reply: say(turn.language, 'memoryForgot', { facts: latest.content }) });
      }
      const about = FORGET_ABOUT.exec(text)?.[1];
      if (!about || NOT_A_FACT.test(about)) return undefined;
      const matching = matchFacts(await deps.facts.list(turn.user.id), about);
      if (matching.length === 0) return undefined;
      const removed = await deps.facts.removeMany(turn.user.id, matching.map((fact) => fact.id));
      turn.logger.info({ event: 'facts_forgotten', count: removed.length }, 'forgot facts without a model');
      return withoutModel({ reply: say(turn.language, 'memoryForgot', { facts: removed.map((fact) => fact.content).join('; ') }) });
    },
  };
}

/** The facts "forget <about>" means: a named category's, else those sharing the most words with it. */
function matchFacts(facts: FactView[], about: string): FactView[] {
  for (const [phrase, category] of CATEGORY_PHRASES) {
    if (phrase.test(about)) return facts.filter((fact) => fact.category === category || fact.subject === category);
  }
  const words = wordsOf(about);
  if (words.size === 0) return [];
  const scored = facts.map((fact) => {
    const factWords = wordsOf(`${fact.subject ?? ''} ${fact.content}`);
    return { fact, score: [...words].filter((word) => factWords.has(word)).length };
  });
  const best = Math.max(0, ...scored.map((entry) => entry.score));
  return best === 0 ? [] : scored.filter((entry) => entry.score === best).map((entry) => entry.fact);
}

function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .replace(/'s\b/g, '')
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length > 1 && !STOP_WORDS.has(word)),
  );
}
