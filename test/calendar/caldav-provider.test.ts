import { CaldavCalendarProvider } from '../../src/calendar/caldav-provider.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { RadicaleServer } from '../helpers/radicale-server.js';
import { localHttp } from '../helpers/outbound.js';
import { describeCalendarProvider } from './provider-contract.js';

describeCalendarProvider('CalDAV (a real Radicale)', async () => {
  const server = await RadicaleServer.start({ ana: 'app-password' });
  const calendarUrl = await server.createCalendar('ana', 'app-password', 'personal', 'Personal');
  return {
    provider: new CaldavCalendarProvider({ label: 'Radicale (ana)', calendarUrl, username: 'ana', password: 'app-password', http: localHttp() }, new ManualClock('2026-01-01T12:00:00Z'), randomIds),
    close: () => server.stop(),
  };
});
