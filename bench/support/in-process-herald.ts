import twilio from 'twilio';
import type { Logger } from '../../src/logging/logger.js';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase, type Database } from '../../src/db/database.js';
import { createHerald, type Herald } from '../../src/runtime.js';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../../test/fakes/fake-twilio-server.js';
import type { BenchPostgres } from './database.js';

/** The public URL the bench's webhooks are signed for. */
const BENCH_PUBLIC_BASE_URL = 'https://herald.bench';

/** A real Herald in this process (production settings, workers running) against the local fakes. */
export interface InProcessHerald {
  herald: Herald;
  database: Database;
  fakeTwilio: FakeTwilioServer;
  fakeAnthropic: FakeAnthropicServer;
  /** Posts a signed inbound webhook through `app.inject`; its status code. */
  post(form: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

/** Starts Herald on a fresh migrated database named for the benchmark; `env` adds or overrides variables. */
export async function startInProcessHerald(postgres: BenchPostgres, name: string, logger: Logger, env: Record<string, string> = {}): Promise<InProcessHerald> {
  const info = await postgres.createMigratedDatabase(name, logger);
  const database = connectDatabase(info.url, 10);
  const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: BENCH_PUBLIC_BASE_URL,
    ACCESS_MODE: 'open',
    NEW_USERS_PER_HOUR: '100000',
    TWILIO_ACCOUNT_SID: fakeTwilio.accountSid,
    TWILIO_AUTH_TOKEN: fakeTwilio.authToken,
    TWILIO_SMS_FROM: '+15005550006',
    TWILIO_API_BASE_URL: fakeTwilio.url,
    ANTHROPIC_API_KEY: 'bench-key',
    ANTHROPIC_BASE_URL: fakeAnthropic.url,
    ANTHROPIC_MAX_RETRIES: '0',
    HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    DATABASE_URL: info.url,
    ...env,
  });
  const herald = await createHerald({ config, logger, database, recoveryIntervalMs: 0, pollingIntervalSeconds: 0.5 });
  await herald.start();
  return {
    herald,
    database,
    fakeTwilio,
    fakeAnthropic,
    async post(form) {
      const signature = twilio.getExpectedTwilioSignature(fakeTwilio.authToken, `${BENCH_PUBLIC_BASE_URL}/twilio/messages`, form);
      const response = await herald.app.inject({
        method: 'POST',
        url: '/twilio/messages',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
        payload: new URLSearchParams(form).toString(),
      });
      return response.statusCode;
    },
    async close() {
      await herald.stop(2_000).catch(() => {});
      await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
      await database.close();
    },
  };
}
