import { DateTime } from 'luxon';

/** What a reply to a reminder asks, read without a model. */
export type ReminderReply =
  | { kind: 'done' }
  /** Put it off: re-deliver at `at`. */
  | { kind: 'snooze'; at: Date }
  /** A snooze Herald will not set (0, negative, or longer than a week): nothing is scheduled. */
  | { kind: 'snooze_out_of_range' };

/** The shortest and longest snooze. */
const MIN_SNOOZE_MS = 60_000;
const MAX_SNOOZE_MS = 7 * 24 * 60 * 60 * 1000;

const DONE = new Set([
  'done', 'did it', 'its done', 'all done', 'finished', 'completed', 'got it done', '✓', '✔', '✔️', '✅', '☑️',
  'בוצע', 'סיימתי', 'עשיתי', 'נעשה', 'בוצע תודה',
  'hecho', 'listo', 'ya está', 'ya esta', 'fait', 'cest fait', 'terminé', 'termine', 'erledigt', 'gemacht', 'feito', 'pronto', 'готово', 'сделано', 'сделал', 'сделала', 'تم', 'انتهيت',
]);

/** Words for "later" with no amount: the default snooze. */
const LATER = new Set(['snooze', 'later', 'remind me later', 'not now', 'נודניק', 'אחר כך', 'אחכ', 'מאוחר יותר', 'más tarde', 'mas tarde', 'luego', 'plus tard', 'später', 'spater', 'mais tarde', 'depois', 'позже', 'потом', 'لاحقا', 'لاحقًا', 'بعدين']);

const UNIT_MINUTES: Record<string, number> = {
  m: 1, min: 1, mins: 1, minute: 1, minutes: 1, minuto: 1, minutos: 1, minuten: 1, דקה: 1, דקות: 1, мин: 1, минут: 1, минуту: 1, минуты: 1, دقيقة: 1, دقائق: 1,
  h: 60, hr: 60, hrs: 60, hour: 60, hours: 60, hora: 60, horas: 60, heure: 60, heures: 60, stunde: 60, stunden: 60, שעה: 60, שעות: 60, час: 60, часа: 60, часов: 60, ساعة: 60, ساعات: 60,
  d: 1440, day: 1440, days: 1440, día: 1440, días: 1440, dia: 1440, dias: 1440, jour: 1440, jours: 1440, tag: 1440, tage: 1440, יום: 1440, ימים: 1440, день: 1440, дня: 1440, дней: 1440, يوم: 1440, أيام: 1440,
};

function normalize(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFC')
    .replace(/['’]/g, '')
    .replace(/(?<![!?.,;:…])[!?.,;:…]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Reads a reply that is only a snooze or done word: "done", "✓", "בוצע", "snooze", "snooze
 * 5", "snooze 20 min", "snooze 1 hour", "snooze until 6", "later", "in 15 minutes", "עוד
 * 10 דקות", "נודניק". Anything else (including "move it to 6", "what was that?") is
 * undefined: it is for the planner. Times are in the user's zone; `defaultMinutes` is a
 * bare snooze's length.
 */
export function readReminderReply(text: string, now: Date, timezone: string, defaultMinutes: number): ReminderReply | undefined {
  const said = normalize(text);
  if (!said) return undefined;
  if (DONE.has(said)) return { kind: 'done' };
  if (LATER.has(said)) return snoozeFor(defaultMinutes * 60_000, now);

  // "snooze until 6", "snooze till 6:30pm", "until 18:00"
  const until = /^(?:snooze )?(?:until|till|til|עד)\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/u.exec(said);
  if (until) return snoozeUntil(Number(until[1]), Number(until[2] ?? 0), until[3] as 'am' | 'pm' | undefined, now, timezone);

  // "snooze", "snooze 5", "snooze -5", "snooze 20 min", "snooze for 1 hour", "in 15 minutes",
  // "remind me in 10 minutes", "עוד 10 דקות", "בעוד שעה", "נודניק 5"
  // A number may touch its unit ("5min"); a word amount needs a space, so "an" is never split.
  const amount = /^(?:snooze(?: for)?|remind me in|in|עוד|בעוד|נודניק)\s*(?:(-?\d{1,7})\s*|(an?|one|half an|חצי)(?:\s+|$))?(\p{L}+)?$/u.exec(said);
  if (!amount) return undefined;
  const [, digits, words, rawUnit] = amount;
  const rawNumber = digits ?? words;
  const unit = rawUnit === undefined ? undefined : UNIT_MINUTES[rawUnit];
  if (rawUnit !== undefined && unit === undefined) return undefined;
  const keyword = said.split(' ')[0]!;
  if (rawNumber === undefined) {
    // "עוד שעה", "in an hour" need their unit; a bare "snooze"/"נודניק" is the default.
    if (unit !== undefined) return snoozeFor(unit * 60_000, now);
    return keyword === 'snooze' || keyword === 'נודניק' ? snoozeFor(defaultMinutes * 60_000, now) : undefined;
  }
  const count = /^-?\d+$/.test(rawNumber) ? Number(rawNumber) : rawNumber === 'half an' || rawNumber === 'חצי' ? 0.5 : 1;
  // "in 15" without a unit is too vague to be only a snooze; "snooze 5" means minutes.
  if (unit === undefined && keyword !== 'snooze' && keyword !== 'נודניק') return undefined;
  return snoozeFor(count * (unit ?? 1) * 60_000, now);
}

function snoozeFor(milliseconds: number, now: Date): ReminderReply {
  if (!Number.isFinite(milliseconds) || milliseconds < MIN_SNOOZE_MS || milliseconds > MAX_SNOOZE_MS) return { kind: 'snooze_out_of_range' };
  return { kind: 'snooze', at: new Date(now.getTime() + milliseconds) };
}

/** The next time the clock shows h:mm (with no am/pm, whichever of h and h+12 comes first). */
function snoozeUntil(hour: number, minute: number, meridiem: 'am' | 'pm' | undefined, now: Date, timezone: string): ReminderReply {
  if (minute > 59 || hour > 23 || (meridiem && (hour < 1 || hour > 12))) return { kind: 'snooze_out_of_range' };
  const local = DateTime.fromJSDate(now, { zone: timezone });
  const hours = meridiem ? [(hour % 12) + (meridiem === 'pm' ? 12 : 0)] : hour <= 12 ? [hour % 24, (hour % 12) + 12] : [hour];
  const candidates = hours.flatMap((h) => [0, 1].map((days) => local.plus({ days }).set({ hour: h, minute, second: 0, millisecond: 0 })));
  const next = candidates.filter((candidate) => candidate.toMillis() > now.getTime()).sort((a, b) => a.toMillis() - b.toMillis())[0]!;
  return snoozeFor(next.toMillis() - now.getTime(), now);
}
