import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import type { SecretBox } from '../connections/secret-box.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

const SIGNING_PURPOSE = 'calendar feed';
const TOKEN_SHAPE = /^[\w-]{43}$/;
/** The most events a feed carries (the newest first, should anyone have more). */
const MAX_FEED_EVENTS = 5000;

/**
 * Each user's secret iCalendar feed of the built-in calendar (`/calendar/<token>.ics`, RFC
 * 5545), for subscribing from Apple or Google Calendar on their phone. The token is derived
 * from the user and a generation under Herald's key, so the same link can be shown again
 * while only its SHA-256 is stored; revoking bumps the generation: the old link is dead
 * and a new one is made.
 */
export class CalendarFeed {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly publicBaseUrl: string,
  ) {}

  /** The user's feed link (made on first request). */
  async link(userId: string): Promise<string> {
    const settings = await this.prisma.calendarSettings.findUnique({ where: { userId } });
    const generation = settings?.feedGeneration ?? 0;
    const token = this.token(userId, generation);
    if (settings?.feedTokenHash !== hash(token)) {
      const now = this.clock.now();
      await this.prisma.calendarSettings.upsert({
        where: { userId },
        create: { userId, feedGeneration: generation, feedTokenHash: hash(token), updatedAt: now },
        update: { feedTokenHash: hash(token), updatedAt: now },
      });
    }
    return this.url(token);
  }

  /** Revokes the current link and returns the new one. */
  async reset(userId: string): Promise<string> {
    const settings = await this.prisma.calendarSettings.findUnique({ where: { userId } });
    const generation = (settings?.feedGeneration ?? 0) + 1;
    const token = this.token(userId, generation);
    const now = this.clock.now();
    await this.prisma.calendarSettings.upsert({
      where: { userId },
      create: { userId, feedGeneration: generation, feedTokenHash: hash(token), updatedAt: now },
      update: { feedGeneration: generation, feedTokenHash: hash(token), updatedAt: now },
    });
    return this.url(token);
  }

  /** The feed a token opens, as iCalendar text; undefined for an unknown or revoked token. */
  async render(token: string): Promise<string | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const settings = await this.prisma.calendarSettings.findUnique({ where: { feedTokenHash: hash(token) }, include: { user: { select: { name: true } } } });
    if (!settings) return undefined;
    const rows = await this.prisma.calendarEvent.findMany({ where: { userId: settings.userId }, orderBy: { startsAt: 'desc' }, take: MAX_FEED_EVENTS, select: { ics: true } });
    const feed = new ICAL.Component(['vcalendar', [], []]);
    feed.updatePropertyWithValue('prodid', '-//Herald//Calendar feed//EN');
    feed.updatePropertyWithValue('version', '2.0');
    feed.updatePropertyWithValue('calscale', 'GREGORIAN');
    feed.updatePropertyWithValue('method', 'PUBLISH');
    feed.updatePropertyWithValue('x-wr-calname', settings.user.name ? `Herald (${settings.user.name})` : 'Herald');
    const refresh = new ICAL.Property('refresh-interval');
    refresh.setParameter('value', 'DURATION');
    refresh.setValue(ICAL.Duration.fromString('PT1H'));
    feed.addProperty(refresh);
    feed.updatePropertyWithValue('x-published-ttl', 'PT1H');
    const zones = new Set<string>();
    for (const row of rows) {
      const object = ICAL.Component.fromString(row.ics);
      for (const zone of object.getAllSubcomponents('vtimezone')) {
        const tzid = String(zone.getFirstPropertyValue('tzid'));
        if (zones.has(tzid)) continue;
        zones.add(tzid);
        feed.addSubcomponent(zone);
      }
      for (const event of object.getAllSubcomponents('vevent')) feed.addSubcomponent(event);
    }
    return feed.toString();
  }

  private token(userId: string, generation: number): string {
    return this.box.sign(SIGNING_PURPOSE, `${userId}:${generation}`);
  }

  private url(token: string): string {
    return `${withoutTrailingSlashes(this.publicBaseUrl)}/calendar/${token}.ics`;
  }
}

function hash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
