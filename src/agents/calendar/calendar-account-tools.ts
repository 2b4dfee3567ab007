import { z } from 'zod';
import type { CalendarFeed } from '../../calendar/calendar-feed.js';
import type { CalendarService } from '../../calendar/calendar-service.js';
import type { ConnectLinks } from '../../connections/connect-links.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../../tools/tool.js';

/** What the account tools need. */
export interface CalendarAccountToolDependencies {
  calendars: CalendarService;
  links: ConnectLinks;
  feed: CalendarFeed;
}

const PURPOSES = { google: 'google-calendar', icloud: 'icloud-calendar', caldav: 'caldav-calendar' } as const;

/** calendar-agent's tools for which calendar Herald uses: connect, disconnect, and the built-in calendar's feed. */
export function calendarAccountTools({ calendars, links, feed }: CalendarAccountToolDependencies): ToolDefinition[] {
  return [
    defineTool({
      name: 'connect_calendar',
      description:
        'Make a short-lived link (it works once, for about 15 minutes) where the user connects their calendar: "google" (Google Calendar), "icloud", or "caldav" (Fastmail, Nextcloud, any CalDAV server). Give the user the link exactly as returned.',
      mutates: false,
      inputSchema: z.object({ service: z.enum(['google', 'icloud', 'caldav']) }),
      run: async (input, context) => {
        if (input.service === 'google' && !calendars.googleConfigured) {
          return toolError('Google Calendar cannot be connected on this Herald (the operator has not set up a Google client). Offer iCloud or another CalDAV calendar, or Herald\'s built-in calendar.');
        }
        const issued = await links.issue(context.userId, PURPOSES[input.service]);
        const minutes = Math.round((issued.expiresAt.getTime() - context.clock.now().getTime()) / 60_000);
        return ok({ link: issued.url, expiresInMinutes: minutes, note: `Send this link exactly as given; it works once, for ${minutes} minutes.` });
      },
    }),
    defineTool({
      name: 'disconnect_calendar',
      description:
        "Disconnect the user's connected calendar (Google or CalDAV): Herald's built-in calendar is used again and events stay where they are. A CalDAV password is deleted; a Google account is deleted too unless it still serves the user's Gmail (then only its calendar access is given up). It waits for the user's YES.",
      mutates: true,
      inputSchema: z.object({}),
      // A connection changes only on the user's YES. The built-in calendar: the call runs and says there is nothing to disconnect.
      confirmation: async (_input, context) => {
        // A connection Herald cannot open (Google no longer set up here) is still asked about, by no name.
        const calendar = await calendars.calendarOf(context.userId).catch(() => undefined);
        if (calendar && !calendar.connection) return undefined;
        const label = calendar?.connection?.label;
        return {
          question: `Disconnect your calendar${label ? ` ${label}` : ''}? Herald goes back to its built-in calendar; your events stay where they are.`,
          done: `Disconnected your calendar${label ? ` ${label}` : ''}: Herald's built-in calendar is in use again.`,
        };
      },
      run: async (_input, context) => {
        // Unconfirmed only when confirmation() found the built-in calendar in use.
        if (!context.confirmed) return toolError("No calendar is connected: Herald's built-in calendar is in use. Nothing was changed.");
        const removed = await calendars.disconnect(context.userId);
        if (!removed) return toolError("No calendar is connected: Herald's built-in calendar is in use. Nothing was changed.");
        return ok({
          effect: 'deleted',
          disconnected: removed.connection.label,
          now: "Herald's built-in calendar",
          credentials: removed.deleted ? 'deleted' : 'kept: the same Google account still serves the user\'s email (only its calendar access was given up)',
        });
      },
    }),
    defineTool({
      name: 'calendar_feed',
      description:
        "The secret link that shows Herald's built-in calendar in the calendar app on the user's phone (subscribe to it in Apple or Google Calendar). reset: true revokes the old link (apps subscribed to it stop updating) and makes a new one; it waits for the user's YES.",
      mutates: true,
      inputSchema: z.object({ reset: z.boolean().optional() }),
      confirmation: async (input) =>
        input.reset
          ? { question: 'Make a new calendar feed link? The old one stops working, so calendar apps subscribed to it must subscribe again.', done: 'Done: the old calendar feed link no longer works. Ask me for the new one.' }
          : undefined,
      run: async (input, context) => {
        if (input.reset) {
          if (!context.confirmed) return toolError('Resetting the feed link needs the user\'s confirmation. Nothing was changed.');
          return ok({ effect: 'updated', link: await feed.reset(context.userId) });
        }
        return ok({ effect: 'unchanged', link: await feed.link(context.userId), howTo: 'iPhone: Settings → Calendar → Accounts → Add Account → Other → Add Subscribed Calendar. Google Calendar (computer): Other calendars → + → From URL.' });
      },
    }),
  ];
}
