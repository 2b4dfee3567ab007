import { DateTime } from 'luxon';
import type { Trip } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import type { UserService } from '../users/user-service.js';
import { formatLocal } from './reminder-schedule.js';
import type { TravelReturn } from './travel-return.js';

/** The furthest return date a trip may have: a year from today. */
const MAX_TRIP_DAYS = 365;

/** What the user said about where they are: a zone, a return date ("until Friday"), or that they are back. */
export interface TripChange {
  timezone?: string | undefined;
  /** Their last local date in the new zone (YYYY-MM-DD). */
  returnOn?: string | undefined;
  backHome?: boolean | undefined;
}

/** A trip as tools and MY DATA show it. */
export interface TripView {
  homeTimezone: string;
  timezone: string;
  returnOn: string;
  /** When the zone goes back home, in the travel zone's words ("Sat, Jan 16, 12:00 AM"). */
  returnsAt: string;
}

/** What a change did: the zone the user is on now, their trip (if any) and what ended. */
export interface TripOutcome {
  timezone: string;
  trip?: TripView;
  /** Why an earlier trip ended now, if one did. */
  ended?: string;
  /** Reminders and routines moved back home by an early return. */
  movedBack?: number;
}

/** An expected failure, worded for the model to act on. */
export type TripResult = { ok: true; value: TripOutcome } | { ok: false; error: string };

/**
 * Trips with a return date (issue 21 item 8): "I'm in Tokyo until Friday" sets the zone to
 * Tokyo and records the trip: the home zone (the zone before it) and the return, the start of
 * the day after the return date in the travel zone (Saturday 00:00 in Tokyo, i.e. the end of
 * Friday there: "until Friday" includes Friday). At that instant a job sets the zone back home
 * (src/reminders/travel-return.ts). The travel question (reminder-travel.ts) is asked as for any
 * zone change; its YES is remembered on the trip and moves things back at the return.
 *
 * - A new return date ("I'm staying until Wednesday") replaces the trip: a new row and job, the
 *   old job finds nothing; the home zone and the YES carry over.
 * - "I'm back home" (`backHome`, or the home zone given) returns now, moving back what moved.
 * - Another zone without a return date ends the trip (UserService.updateProfile drops it).
 */
export class TravelTrips {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly users: UserService,
    private readonly returns: TravelReturn,
    private readonly clock: Clock,
  ) {}

  /** The user's trip, if they have one. */
  async current(userId: string): Promise<TripView | undefined> {
    const trip = await this.prisma.trip.findUnique({ where: { userId } });
    return trip ? toTripView(trip) : undefined;
  }

  /** Applies what the user said: nothing changes when the result is an error. */
  async change(userId: string, change: TripChange): Promise<TripResult> {
    const user = await this.prisma.user.findUnique({ where: { id: userId }, include: { trip: true } });
    if (!user) return { ok: false, error: 'The user no longer exists. Nothing was changed.' };
    const trip = user.trip;
    if (change.backHome) {
      if (change.returnOn !== undefined) return { ok: false, error: 'backHome and returnOn contradict each other: back now, or away until a date? Nothing was changed.' };
      if (trip) return this.returnNow(trip);
      if (change.timezone === undefined) {
        return { ok: false, error: "No trip is recorded, so Herald does not know the user's home time zone. Nothing was changed: ask which time zone they are on and set timezone." };
      }
    }
    if (change.returnOn === undefined) {
      const zone = change.timezone;
      if (zone === undefined) return { ok: true, value: { timezone: user.timezone, ...(trip ? { trip: toTripView(trip) } : {}) } };
      if (trip && zone === trip.homeTimezone) return this.returnNow(trip);
      // A zone other than the trip's, with no return date, ends the trip (updateProfile drops it).
      await this.users.updateProfile(userId, { timezone: zone });
      if (trip && zone !== trip.timezone) return { ok: true, value: { timezone: zone, ended: `the trip to ${trip.timezone} ended (a new time zone without a return date: nothing will change back on ${trip.returnOn})` } };
      return { ok: true, value: { timezone: zone, ...(trip ? { trip: toTripView(trip) } : {}) } };
    }

    const zone = change.timezone ?? trip?.timezone ?? user.timezone;
    const home = trip?.homeTimezone ?? user.timezone;
    if (zone === home) {
      return {
        ok: false,
        error: trip
          ? `${home} is the user's home time zone, not a trip: to end the trip now set backHome. Nothing was changed.`
          : `A return date belongs to a trip: give the timezone the user is travelling to (they are on ${home} now). Nothing was changed.`,
      };
    }
    const checked = checkReturnOn(change.returnOn, zone, this.clock.now());
    if (!checked.ok) return checked;
    const returnAt = checked.returnAt;
    const now = this.clock.now();
    const saved = await this.prisma.$transaction(async (transaction) => {
      // A changed trip is a new row: the old trip's job, should it run, finds nothing.
      await transaction.trip.deleteMany({ where: { userId } });
      const created = await transaction.trip.create({
        data: { userId, homeTimezone: home, timezone: zone, returnOn: change.returnOn!, returnAt, dueAt: returnAt, movesReminders: trip?.movesReminders ?? false, createdAt: now, updatedAt: now },
      });
      await transaction.user.update({ where: { id: userId }, data: { timezone: zone } });
      await this.returns.schedule(transaction, created.id, userId, returnAt);
      return created;
    });
    return { ok: true, value: { timezone: zone, trip: toTripView(saved), ...(trip ? { ended: `replaced the trip until ${trip.returnOn}` } : {}) } };
  }

  private async returnNow(trip: Trip): Promise<TripResult> {
    const returned = await this.returns.returnNow(trip.id);
    if (!returned) return { ok: true, value: { timezone: trip.homeTimezone, ended: 'the trip had already ended' } };
    return { ok: true, value: { timezone: returned.homeTimezone, ended: 'back home: the trip ended early', movedBack: returned.moved } };
  }
}

/** A return date Herald accepts: a real date, not before today in the travel zone, at most a year ahead. */
function checkReturnOn(returnOn: string, zone: string, now: Date): { ok: true; returnAt: Date } | { ok: false; error: string } {
  const day = DateTime.fromISO(returnOn, { zone });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(returnOn) || !day.isValid) return { ok: false, error: `returnOn "${returnOn}" is not a date (YYYY-MM-DD). Nothing was changed.` };
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  if (day < today) {
    return { ok: false, error: `returnOn ${returnOn} is in the past: today is ${today.toISODate()} in ${zone}. Nothing was changed: ask the user until when they are away.` };
  }
  const latest = today.plus({ days: MAX_TRIP_DAYS });
  if (day > latest) {
    return { ok: false, error: `returnOn ${returnOn} is more than a year away (the latest is ${latest.toISODate()}). Nothing was changed: for a move rather than a trip, set the timezone without returnOn.` };
  }
  return { ok: true, returnAt: day.plus({ days: 1 }).startOf('day').toJSDate() };
}

/** A trip as tools and MY DATA show it. */
function toTripView(trip: Pick<Trip, 'homeTimezone' | 'timezone' | 'returnOn' | 'returnAt'>): TripView {
  return { homeTimezone: trip.homeTimezone, timezone: trip.timezone, returnOn: trip.returnOn, returnsAt: formatLocal(trip.returnAt, trip.timezone) };
}
