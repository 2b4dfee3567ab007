import { countryOfPhone } from '../channels/phone-number.js';
import { zonesOfNumber } from '../channels/phone-zones.js';
import type { QuestionAsk } from '../questions/pending-question.js';
import { say, type TextLanguage } from '../texts/texts.js';
import type { UserConfig } from '../users/user-service.js';
import { SET_TIMEZONE_ACTION } from './set-timezone-action.js';
import { zoneChoices } from './zone-choices.js';

/** The question, and the choice that keeps it. */
export interface ZoneAsk {
  reply: string;
  question: QuestionAsk;
}

/**
 * Whether Herald should ask this user's zone now: it was a guess (the number maps to several
 * clocks or none), and Herald has never asked. It asks once, ever: after that, the guess
 * stands and every time Herald sets says which zone it is in (src/timezones/zone-statement.ts).
 */
export function shouldAskZone(user: Pick<UserConfig, 'timezoneSource' | 'timezoneAskedAt'>): boolean {
  return user.timezoneSource === 'guess' && user.timezoneAskedAt === null;
}

/**
 * "Before I set that, which time is it where you are? 1) 3:05 pm (New York) 2) 2:05 pm
 * (Chicago) …": one option per clock among the number's zones (or just the current guess,
 * when the mapping knows none). A pick runs {@link SET_TIMEZONE_ACTION} with the messages that
 * waited for it, without a model.
 */
export function askZone(user: Pick<UserConfig, 'phone' | 'timezone'>, waiting: string[], language: TextLanguage, now: Date): ZoneAsk {
  const candidates = zonesOfNumber(user.phone);
  const choices = zoneChoices(candidates.length > 0 ? candidates : [user.timezone], countryOfPhone(user.phone), now, language);
  const options = choices.map((choice, index) => `${index + 1}) ${choice.label}`).join('\n');
  const reply = say(language, 'zoneAsk', { options });
  return {
    reply,
    question: {
      kind: 'choice',
      question: reply,
      payload: {
        ...SET_TIMEZONE_ACTION,
        candidates: choices.map((choice) => ({ label: choice.label, input: { timezone: choice.timezone, replay: waiting } })),
      },
    },
  };
}
