import { normalizeFact as normalizeText } from '../memory/fact-service.js';
import type { CalendarEvent, TimeRange } from './calendar-event.js';
import type { CalendarProvider } from './calendar-provider.js';
import { describeEventTime } from './event-view.js';

/** Which event a change names: its id from a listing, or words of its title within a range. */
export interface EventTarget {
  eventId?: string | undefined;
  match?: string | undefined;
  /** Where to look for `match` (default: from a day ago to 90 days ahead). */
  range?: TimeRange | undefined;
}

/**
 * The one event a target names, or why not (worded for the model: nothing was changed):
 * several `candidates` (Herald asks which, numbered), or `gone` (the id names no event any more).
 */
export type LookupResult = { ok: true; event: CalendarEvent } | { ok: false; error: string; candidates?: CalendarEvent[]; gone?: boolean };

const IGNORED = new Set(['the', 'my', 'a', 'an', 'event', 'events', 'on', 'at', 'in', 'with', 'calendar', 'appointment']);

/**
 * Finds the event a tool call means. Several occurrences of one recurring event count as
 * one (the next of them is meant); two different events matching is never guessed: the
 * answer lists them so the agent can ask the user which.
 */
export async function findEvent(provider: CalendarProvider, target: EventTarget, zone: string, now: Date): Promise<LookupResult> {
  if (target.eventId) {
    const event = await provider.getEvent(target.eventId, zone);
    return event ? { ok: true, event } : { ok: false, gone: true, error: `No event has id "${target.eventId}" in ${provider.label} (it may have been deleted). Nothing was changed.` };
  }
  const words = normalizeText(target.match ?? '').split(' ').filter((word) => word.length > 0 && !IGNORED.has(word));
  if (words.length === 0) return { ok: false, error: 'Say which event: give its eventId from get_calendar_events, or words of its title as "match". Nothing was changed.' };
  const range = target.range ?? { from: new Date(now.getTime() - 86_400_000), to: new Date(now.getTime() + 90 * 86_400_000) };
  const events = await provider.listEvents(range, zone);
  const matching = events.filter((event) => {
    const haystack = ` ${normalizeText([event.title, event.location ?? '', event.description ?? ''].join(' '))} `;
    return words.every((word) => haystack.includes(word));
  });
  // Occurrences of one series are one event: the first upcoming one stands for it.
  const distinct = new Map<string, CalendarEvent>();
  for (const event of matching) {
    const series = seriesKey(event.id);
    const kept = distinct.get(series);
    if (!kept || (kept.endsAt.getTime() < now.getTime() && event.endsAt.getTime() >= now.getTime())) distinct.set(series, event);
  }
  const candidates = [...distinct.values()];
  if (candidates.length === 1) return { ok: true, event: candidates[0]! };
  const listing = (list: CalendarEvent[]) => list.slice(0, 8).map((event, index) => `${index + 1}) "${event.title}" ${describeEventTime(event)} (id ${event.id})`).join('; ');
  if (candidates.length === 0) {
    return { ok: false, error: `No event matching "${target.match}" was found in ${provider.label} between ${range.from.toISOString().slice(0, 10)} and ${range.to.toISOString().slice(0, 10)}. Nothing was changed.` };
  }
  return {
    ok: false,
    candidates: candidates.slice(0, 10),
    error: `${candidates.length} events match "${target.match}": ${listing(candidates)}. Nothing was changed; Herald asks the user which one (complete with needsClarification).`,
  };
}

/** The series an event or occurrence belongs to: the id without its occurrence part (ours "@…", Google's "_…"). */
export function seriesKey(id: string): string {
  return id.replace(/@\d{8}(?:T\d{6}Z?)?$/, '').replace(/_\d{8}(?:T\d{6}Z?)?$/, '');
}
