import { GoogleCalendarProvider } from '../../src/calendar/google-provider.js';
import { ConnectionStore } from '../../src/connections/connection-store.js';
import { GoogleAccounts } from '../../src/connections/google-accounts.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { systemClock } from '../../src/shared/clock.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { describeCalendarProvider } from './provider-contract.js';

describeCalendarProvider('Google Calendar (the official client against a fake Calendar API)', async () => {
  const [database, google] = await Promise.all([createTestDatabase(4), FakeGoogleServer.start()]);
  const user = await database.prisma.user.create({ data: { phone: '+14155550178', timezone: 'America/New_York', updatedAt: new Date() } });
  const store = new ConnectionStore(database.prisma, new SecretBox(Buffer.alloc(32, 3)), systemClock);
  const env = google.env();
  const accounts = new GoogleAccounts(
    { clientId: env.GOOGLE_CLIENT_ID!, clientSecret: env.GOOGLE_CLIENT_SECRET!, authUrl: env.GOOGLE_OAUTH_AUTH_URL!, tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL!, revokeUrl: env.GOOGLE_OAUTH_REVOKE_URL!, apiBaseUrl: env.GOOGLE_API_BASE_URL! },
    'https://herald.test/oauth/google/callback',
    store,
    createSilentLogger(),
  );
  const grant = google.grant();
  const connection = await store.save(user.id, { provider: 'google', account: 'ana@gmail.com', label: 'Google (ana@gmail.com)', settings: {}, secrets: grant });
  return {
    provider: new GoogleCalendarProvider(connection, accounts, 5000),
    close: async () => {
      await google.close();
      await database.drop();
    },
  };
});
