import { BuiltinCalendarProvider } from '../../src/calendar/builtin-provider.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { describeCalendarProvider } from './provider-contract.js';

describeCalendarProvider('built-in (Postgres)', async () => {
  const database = await createTestDatabase(4);
  const user = await database.prisma.user.create({ data: { phone: '+14155550177', timezone: 'America/New_York', updatedAt: new Date() } });
  return {
    provider: new BuiltinCalendarProvider(database.prisma, user.id, new ManualClock('2026-01-01T12:00:00Z'), randomIds),
    close: () => database.drop(),
  };
});
