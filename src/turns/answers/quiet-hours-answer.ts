import { say } from '../../texts/texts.js';
import { clockTime, formatQuietWindow, type QuietHours, type QuietWindow } from '../../users/quiet-hours.js';
import type { UserService } from '../../users/user-service.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

const TIME = String.raw`(\d{1,2})(?:[:.](\d{2}))?(?:\s*(am|pm|a\.m\.|p\.m\.))?`;
const DONT_TEXT = String.raw`(?:please )?(?:don'?t|do not|never) (?:text|message|write|ping|bother|contact) me`;
/** "Don't text me after 10 pm". */
const AFTER = new RegExp(String.raw`^(?:${DONT_TEXT}|no (?:messages|texts)) after ${TIME}$`, 'i');
/** "Don't text me before 8 am". */
const BEFORE = new RegExp(String.raw`^(?:${DONT_TEXT}|no (?:messages|texts)) before ${TIME}$`, 'i');
/** "Don't text me between 10 pm and 7 am", "quiet hours 23:00-06:30", "quiet hours from 11 pm to 7 am". */
const BETWEEN = new RegExp(String.raw`^(?:(?:${DONT_TEXT}|no (?:messages|texts)) between|(?:set )?(?:my )?quiet hours(?: (?:to|from|are))?) ${TIME}\s*(?:-|–|to|and|until)\s*${TIME}$`, 'i');
/** "No quiet hours", "quiet hours off", "you can text me anytime". */
const OFF = /^(?:no quiet hours|quiet hours off|turn off quiet hours|you can (?:text|message) me (?:at )?any ?time)$/i;

/**
 * Quiet hours set by text, without a model (issue 21 item 8): "don't text me after 10 pm"
 * moves their start, "… before 8 am" their end, "quiet hours 23:00-06:30" sets both, "no
 * quiet hours" turns them off. Kept on the user; src/users/quiet-hours.ts applies them.
 */
export function quietHoursAnswer(deps: { users: UserService; quietHours: QuietHours }): TurnAnswer {
  return {
    name: 'quiet_hours',
    async answer(turn) {
      if (turn.carriesMedia) return undefined;
      const text = turn.text.trim().replace(/(?<![.!])[.!]+$/, '').replace(/\s+/g, ' ').replace(/’/g, "'");
      if (OFF.test(text)) {
        await deps.users.setQuietHours(turn.user.id, 'off');
        return withoutModel({ reply: say(turn.language, 'quietOff') });
      }
      const current = deps.quietHours.windowFor(turn.user);
      const fallback: QuietWindow = current === 'off' ? { start: 22 * 60, end: 7 * 60 } : current;
      let window: QuietWindow | undefined;
      let match = AFTER.exec(text);
      if (match) window = withTime(fallback, 'start', minutesOf(match, 1, 'pm'));
      else if ((match = BEFORE.exec(text))) window = withTime(fallback, 'end', minutesOf(match, 1, 'am'));
      else if ((match = BETWEEN.exec(text))) {
        const start = minutesOf(match, 1, 'pm');
        const end = minutesOf(match, 4, 'am');
        window = start === undefined || end === undefined ? undefined : { start, end };
      }
      if (!window || window.start === window.end) return undefined;
      await deps.users.setQuietHours(turn.user.id, formatQuietWindow(window));
      turn.logger.info({ event: 'quiet_hours_set' }, 'quiet hours set without a model');
      return withoutModel({ reply: say(turn.language, 'quietSet', { start: clockTime(window.start), end: clockTime(window.end) }) });
    },
  };
}

function withTime(window: QuietWindow, edge: 'start' | 'end', minutes: number | undefined): QuietWindow | undefined {
  return minutes === undefined ? undefined : { ...window, [edge]: minutes };
}

/**
 * A time as minutes since midnight. Without am/pm, an hour up to 12 is read the likelier way
 * round for that edge ("after 10" is 22:00, "before 8" is 08:00); 13-23 are a 24-hour clock.
 */
function minutesOf(match: RegExpExecArray, at: number, bare: 'am' | 'pm'): number | undefined {
  let hour = Number(match[at]);
  const minute = Number(match[at + 1] ?? 0);
  const meridiem = match[at + 2]?.toLowerCase().replace(/\./g, '') as 'am' | 'pm' | undefined;
  if (hour > 23 || minute > 59) return undefined;
  const half = meridiem ?? (hour >= 1 && hour <= 12 ? bare : undefined);
  if (half) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  }
  return hour * 60 + minute;
}
