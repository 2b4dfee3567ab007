import { describe, expect, it } from 'vitest';
import { describeEnvironment, loadConfig } from '../../src/config/config.js';
import { environmentSchema, secretVariables } from '../../src/config/env-schema.js';
import { ConfigurationError } from '../../src/shared/errors.js';

// Distinctive fake secrets: if any of them shows up in an error message or a log
// description, a secret leaked.
const FAKE_AUTH_TOKEN = 'tok_9f2e7c1bd4a84e0fb2c6a1d3e5f70819';
const FAKE_ANTHROPIC_KEY = 'sk-ant-fake-5b8d1e3f7a9c2b4d6e8f0a1c3e5b7d9f';
const FAKE_DB_PASSWORD = 'pw_c4e6a8b0d2f4a6c8';
const VALID_SID = `AC${'0123456789abcdef'.repeat(2)}`;

/** Runs loadConfig expecting a ConfigurationError; returns it. */
function configError(environment: Record<string, string | undefined>): ConfigurationError {
  try {
    loadConfig(environment);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(Object.keys(environment))}`);
}

/** The variable names listed in a configuration error, one per "  - NAME: ..." line. */
function listedVariables(error: Error): string[] {
  return [...error.message.matchAll(/^ {2}- ([A-Z0-9_]+):/gm)].map((match) => match[1]!);
}

describe('loadConfig: defaults', () => {
  it('starts from an empty environment with the documented defaults and the console transport', () => {
    const config = loadConfig({});

    expect(config.nodeEnv).toBe('development');
    expect(config.logLevel).toBe('info');
    expect(config.http).toEqual({
      host: '0.0.0.0',
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      linkBaseUrl: 'http://localhost:3000',
      bodyLimitBytes: 64 * 1024,
      rateLimitPerMinute: 600,
    });
    // No DATABASE_URL: an embedded Postgres under ./.data.
    // Start-up waits up to a minute for DATABASE_URL's server; a SIGTERM gives turns 20 s.
    expect(config.database).toEqual({ url: undefined, dataDir: '.data', poolSize: 10, connectTimeoutMs: 0, connectionWaitMs: 60_000 });
    expect(config.shutdownGraceMs).toBe(20_000);
    expect(config.twilio.transport).toBe('console');
    expect(config.twilio.authToken).toBeUndefined();
    expect(config.anthropic.apiKey).toBeUndefined();
    expect(config.defaultTimezone).toBe('UTC');
    // docs/ARCHITECTURE.md "Defaults".
    expect(config.history).toEqual({ maxAgeHours: 24, maxMessages: 20, maxTokens: 4000 });
    expect(config.limits).toMatchObject({
      planTimeoutMs: 120_000,
      stepTimeoutMs: 60_000,
      stepMaxRetries: 2,
      maxReplans: 3,
      maxPlanSteps: 10,
      confirmationTtlMs: 300_000,
      plannerPromptTokens: 8000,
      agentPromptTokens: 4000,
    });
  });

  it('does not read process.env when given an explicit source', () => {
    const saved = process.env.PORT;
    process.env.PORT = '4321';
    try {
      expect(loadConfig({}).http.port).toBe(3000);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it('parses numbers and overrides', () => {
    const config = loadConfig({
      PORT: '8080',
      HISTORY_MAX_MESSAGES: '7',
      DEFAULT_TIMEZONE: 'Asia/Jerusalem',
      PUBLIC_BASE_URL: 'https://herald.example.com/',
    });
    expect(config.http.port).toBe(8080);
    expect(config.history.maxMessages).toBe(7);
    expect(config.defaultTimezone).toBe('Asia/Jerusalem');
    expect(config.http.publicBaseUrl).toBe('https://herald.example.com/');
  });

  it('media, voice and web settings: defaults, overrides, and rules across variables', () => {
    const defaults = loadConfig({});
    expect(defaults.media).toEqual({ maxBytes: 10 * 1024 * 1024, timeoutMs: 20_000, deleteFromTwilio: true, voiceMaxSeconds: 300, ffmpegPath: 'ffmpeg', transcription: undefined });
    expect(defaults.webSearch).toBe(true);
    expect(defaults.twilio.apiKey).toBeUndefined();
    const set = loadConfig({
      TRANSCRIPTION_BASE_URL: 'https://api.groq.com/openai/v1',
      TRANSCRIPTION_API_KEY: 'gsk_secret',
      TRANSCRIPTION_PRICE_PER_MINUTE: '0.0011',
      TWILIO_DELETE_MEDIA: 'off',
      WEB_SEARCH: 'off',
      TWILIO_API_KEY_SID: `SK${'a'.repeat(32)}`,
      TWILIO_API_KEY_SECRET: 'key-secret',
    });
    expect(set.media.transcription).toEqual({ baseUrl: 'https://api.groq.com/openai/v1', apiKey: 'gsk_secret', model: 'gpt-4o-mini-transcribe', timeoutMs: 60_000, pricePerMinuteUsd: 0.0011 });
    expect(set.media.deleteFromTwilio).toBe(false);
    expect(set.webSearch).toBe(false);
    expect(set.twilio.apiKey).toEqual({ sid: `SK${'a'.repeat(32)}`, secret: 'key-secret' });
    const error = configError({ TWILIO_API_KEY_SID: `SK${'a'.repeat(32)}`, TWILIO_DELETE_MEDIA: 'maybe', WEB_SEARCH: 'sometimes', TRANSCRIPTION_BASE_URL: 'ftp://x' });
    for (const variable of ['TWILIO_API_KEY_SECRET', 'TWILIO_DELETE_MEDIA', 'WEB_SEARCH', 'TRANSCRIPTION_BASE_URL']) expect(error.message).toContain(variable);
    expect(describeEnvironment({ TRANSCRIPTION_API_KEY: 'gsk_secret', TWILIO_API_KEY_SECRET: 'key-secret' })).toEqual({ TRANSCRIPTION_API_KEY: '[set]', TWILIO_API_KEY_SECRET: '[set]' });
  });

  it('links sent to people never carry the credentials of a PUBLIC_BASE_URL (Twilio\'s requests still use them)', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://twilio:s3cret@herald.example.com' });
    expect(config.http.publicBaseUrl).toBe('https://twilio:s3cret@herald.example.com');
    expect(config.http.linkBaseUrl).toBe('https://herald.example.com/');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://herald.example.com' }).http.linkBaseUrl).toBe('https://herald.example.com');
  });
});

describe('loadConfig: empty strings count as unset', () => {
  it('gives every variable its default when set to "" or blanks (as docker compose ${VAR:-} does)', () => {
    const blank = Object.fromEntries(Object.keys(environmentSchema.shape).map((key, index) => [key, index % 2 === 0 ? '' : '  ']));
    expect(loadConfig(blank)).toEqual(loadConfig({}));
  });

  it('treats PORT="" as the default 3000, not as port 0', () => {
    expect(loadConfig({ PORT: '' }).http.port).toBe(3000);
  });

  it('treats an empty NODE_ENV, HOST, DEFAULT_TIMEZONE and limit as unset', () => {
    const config = loadConfig({ NODE_ENV: '', HOST: '', DEFAULT_TIMEZONE: '', HISTORY_MAX_MESSAGES: '' });
    expect(config.nodeEnv).toBe('development');
    expect(config.http.host).toBe('0.0.0.0');
    expect(config.defaultTimezone).toBe('UTC');
    expect(config.history.maxMessages).toBe(20);
  });

  it('treats empty Twilio credentials as absent: console transport, no Twilio error', () => {
    const config = loadConfig({ TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '', TWILIO_SMS_FROM: '', TWILIO_WHATSAPP_FROM: '' });
    expect(config.twilio.transport).toBe('console');
    expect(config.twilio.accountSid).toBeUndefined();
    expect(config.twilio.authToken).toBeUndefined();
  });

  it('treats an empty DATABASE_URL as "use the embedded server"', () => {
    expect(loadConfig({ DATABASE_URL: '' }).database.url).toBeUndefined();
  });
});

describe('loadConfig: transport', () => {
  it('is console without Twilio credentials', () => {
    expect(loadConfig({}).twilio.transport).toBe('console');
  });

  it('is console with only an auth token (webhooks can be verified, but nothing can be sent)', () => {
    const config = loadConfig({ TWILIO_AUTH_TOKEN: FAKE_AUTH_TOKEN });
    expect(config.twilio.transport).toBe('console');
    expect(config.twilio.authToken).toBe(FAKE_AUTH_TOKEN);
  });

  it('is twilio with account SID, auth token and a sender', () => {
    const config = loadConfig({ TWILIO_ACCOUNT_SID: VALID_SID, TWILIO_AUTH_TOKEN: FAKE_AUTH_TOKEN, TWILIO_SMS_FROM: '+15005550006' });
    expect(config.twilio.transport).toBe('twilio');
    expect(config.twilio.smsFrom).toBe('+15005550006');
  });
});

describe('loadConfig: every problem in one error', () => {
  it('lists a bad PORT, a bad time zone, a WhatsApp sender without whatsapp: and a SID without token together', () => {
    const error = configError({
      PORT: 'eighty',
      DEFAULT_TIMEZONE: 'Mars/Olympus_Mons',
      TWILIO_WHATSAPP_FROM: '+14155238886',
      TWILIO_ACCOUNT_SID: VALID_SID,
    });

    expect(error.message).toMatch(/^Herald cannot start; fix these settings:/);
    expect(new Set(listedVariables(error))).toEqual(new Set(['PORT', 'DEFAULT_TIMEZONE', 'TWILIO_WHATSAPP_FROM', 'TWILIO_AUTH_TOKEN']));
    expect(error.message).toMatch(/DEFAULT_TIMEZONE: must be an IANA time zone/);
    expect(error.message).toMatch(/TWILIO_WHATSAPP_FROM: must start with "whatsapp:"/);
    expect(error.message).toMatch(/TWILIO_AUTH_TOKEN: is required when TWILIO_ACCOUNT_SID is set/);
    expect(error.blame).toBe('configuration');
  });

  it('reports type errors and cross-field rules in the same pass', () => {
    // A malformed SID, an out-of-range port, a limit below its minimum, a bad enum, a bad URL,
    // and production without its required settings: nine problems, one message (the bad
    // SID counts as set, so only its own format is reported for it).
    const error = configError({
      NODE_ENV: 'production',
      PORT: '70000',
      TWILIO_ACCOUNT_SID: 'not-a-sid',
      HISTORY_MAX_MESSAGES: '0',
      LOG_LEVEL: 'loud',
      ANTHROPIC_BASE_URL: 'ftp://anthropic.example',
    });
    expect(new Set(listedVariables(error))).toEqual(
      new Set(['PORT', 'TWILIO_ACCOUNT_SID', 'HISTORY_MAX_MESSAGES', 'LOG_LEVEL', 'ANTHROPIC_BASE_URL', 'TWILIO_AUTH_TOKEN', 'PUBLIC_BASE_URL', 'ANTHROPIC_API_KEY', 'HERALD_ENCRYPTION_KEY']),
    );
  });

  it('rejects ports outside 0..65535 and non-integers', () => {
    for (const port of ['65536', '-1', '3000.5', '1e3', 'abc']) {
      expect(listedVariables(configError({ PORT: port })), port).toEqual(['PORT']);
    }
    expect(loadConfig({ PORT: '65535' }).http.port).toBe(65_535);
  });

  it('takes PAGE_TTL_HOURS (default 72) as whole hours from 1 to a year', () => {
    expect(loadConfig({}).pages.ttlHours).toBe(72);
    expect(loadConfig({ PAGE_TTL_HOURS: '24' }).pages.ttlHours).toBe(24);
    for (const hours of ['0', '-1', '1.5', String(24 * 366 + 1)]) {
      expect(listedVariables(configError({ PAGE_TTL_HOURS: hours })), hours).toEqual(['PAGE_TTL_HOURS']);
    }
  });

  it('reads CONNECT_ALLOWED_HOSTS (none by default) and names an entry that is not a host, host:port or network', () => {
    expect(loadConfig({}).connections.allowedHosts).toEqual([]);
    expect(loadConfig({ CONNECT_ALLOWED_HOSTS: 'caldav.home.lan, nas.home.lan:5232, 192.168.1.0/24' }).connections.allowedHosts).toHaveLength(3);
    const error = configError({ CONNECT_ALLOWED_HOSTS: 'caldav.home.lan,https://nas.home.lan/' });
    expect(listedVariables(error)).toEqual(['CONNECT_ALLOWED_HOSTS']);
    expect(error.message).toContain('"https://nas.home.lan/" is not a host');
  });

  it('requires a sender once Twilio credentials are complete', () => {
    const error = configError({ TWILIO_ACCOUNT_SID: VALID_SID, TWILIO_AUTH_TOKEN: FAKE_AUTH_TOKEN });
    expect(listedVariables(error)).toEqual(['TWILIO_SMS_FROM']);
  });

  it('rejects a PUBLIC_BASE_URL with a query string, which would break signature URLs', () => {
    expect(listedVariables(configError({ PUBLIC_BASE_URL: 'https://herald.example.com/?x=1' }))).toEqual(['PUBLIC_BASE_URL']);
    expect(listedVariables(configError({ PUBLIC_BASE_URL: 'herald.example.com' }))).toEqual(['PUBLIC_BASE_URL']);
  });
});

describe('loadConfig: production', () => {
  const productionRequired = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'PUBLIC_BASE_URL', 'ANTHROPIC_API_KEY', 'HERALD_ENCRYPTION_KEY'];
  const complete = {
    NODE_ENV: 'production',
    TWILIO_ACCOUNT_SID: VALID_SID,
    TWILIO_AUTH_TOKEN: FAKE_AUTH_TOKEN,
    TWILIO_SMS_FROM: '+15005550006',
    ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
    PUBLIC_BASE_URL: 'https://herald.example.com',
    HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  };

  it('refuses to start without Twilio credentials, the model key, PUBLIC_BASE_URL and the encryption key, naming each', () => {
    const error = configError({ NODE_ENV: 'production' });
    expect(new Set(listedVariables(error))).toEqual(new Set(productionRequired));
    expect(error.message).toMatch(/TWILIO_AUTH_TOKEN: is required in production/);
    expect(error.message).toMatch(/PUBLIC_BASE_URL: is required in production/);
    expect(error.message).toMatch(/TWILIO_ACCOUNT_SID: is required in production/);
    expect(error.message).toMatch(/ANTHROPIC_API_KEY: is required in production/);
    expect(error.message).toMatch(/HERALD_ENCRYPTION_KEY: is required in production/);
  });

  it('refuses with empty values too (empty means unset)', () => {
    const error = configError({ NODE_ENV: 'production', TWILIO_ACCOUNT_SID: ' ', TWILIO_AUTH_TOKEN: '', PUBLIC_BASE_URL: '  ', ANTHROPIC_API_KEY: '', HERALD_ENCRYPTION_KEY: ' ' });
    expect(new Set(listedVariables(error))).toEqual(new Set(productionRequired));
  });

  it('starts once all are set', () => {
    const config = loadConfig(complete);
    expect(config.twilio.transport).toBe('twilio');
    expect(config.nodeEnv).toBe('production');
    expect(config.http.publicBaseUrl).toBe('https://herald.example.com');
  });

  it('takes the encryption key as 64 hex characters or base64 of 32 bytes, and refuses anything else without echoing it', () => {
    expect(loadConfig({ ...complete, HERALD_ENCRYPTION_KEY: 'ab'.repeat(32) }).connections.encryptionKey).toBe('ab'.repeat(32));
    expect(loadConfig({ ...complete, HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64url') }).connections.encryptionKey).toBeDefined();
    for (const key of ['short', 'ab'.repeat(31), Buffer.alloc(16, 1).toString('base64')]) {
      const error = configError({ ...complete, HERALD_ENCRYPTION_KEY: key });
      expect(listedVariables(error), key).toEqual(['HERALD_ENCRYPTION_KEY']);
      expect(error.message).not.toContain(key);
    }
  });
});

describe('secrets are never printed', () => {
  const secretEnvironment = {
    TWILIO_AUTH_TOKEN: FAKE_AUTH_TOKEN,
    ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
    DATABASE_URL: `postgresql://herald:${FAKE_DB_PASSWORD}@db.internal:5432/herald`,
  };

  it('leaves secret values out of the configuration error, even when the secret itself is invalid', () => {
    const error = configError({
      ...secretEnvironment,
      // Invalid on purpose, each carrying a secret: a wrong scheme for the database…
      DATABASE_URL: `mysql://herald:${FAKE_DB_PASSWORD}@db.internal/herald`,
      // …and a token pasted into the wrong variables.
      PORT: FAKE_AUTH_TOKEN,
      TWILIO_ACCOUNT_SID: FAKE_AUTH_TOKEN,
      LOG_LEVEL: FAKE_ANTHROPIC_KEY,
      DEFAULT_TIMEZONE: FAKE_ANTHROPIC_KEY,
      TWILIO_WHATSAPP_FROM: FAKE_AUTH_TOKEN,
      NODE_ENV: 'production',
    });
    expect(listedVariables(error)).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'PORT', 'TWILIO_ACCOUNT_SID', 'LOG_LEVEL', 'DEFAULT_TIMEZONE', 'TWILIO_WHATSAPP_FROM']),
    );
    const everything = `${error.message}\n${error.stack ?? ''}\n${JSON.stringify(error)}`;
    for (const secret of [FAKE_AUTH_TOKEN, FAKE_ANTHROPIC_KEY, FAKE_DB_PASSWORD]) expect(everything).not.toContain(secret);
  });

  it('masks secrets in describeEnvironment, says they are set, and drops unset and unknown variables', () => {
    const described = describeEnvironment({
      ...secretEnvironment,
      PORT: '8080',
      TWILIO_ACCOUNT_SID: VALID_SID,
      TWILIO_SMS_FROM: '',
      SOME_OTHER_SECRET: FAKE_AUTH_TOKEN,
    });
    const text = JSON.stringify(described);
    for (const secret of [FAKE_AUTH_TOKEN, FAKE_ANTHROPIC_KEY, FAKE_DB_PASSWORD]) expect(text).not.toContain(secret);
    expect(described).toEqual({
      TWILIO_AUTH_TOKEN: '[set]',
      ANTHROPIC_API_KEY: '[set]',
      DATABASE_URL: '[set]',
      PORT: '8080',
      TWILIO_ACCOUNT_SID: VALID_SID,
    });
  });

  it('masks every variable the schema marks secret', () => {
    const all = Object.fromEntries(secretVariables.map((key) => [key, `${FAKE_AUTH_TOKEN}-${key}`]));
    const described = describeEnvironment(all);
    expect(Object.values(described)).toEqual(secretVariables.map(() => '[set]'));
  });

  it('masks credentials embedded in non-secret URLs', () => {
    const described = describeEnvironment({
      PUBLIC_BASE_URL: `https://ops:${FAKE_DB_PASSWORD}@herald.example.com`,
      ANTHROPIC_BASE_URL: `https://proxy-user:${FAKE_ANTHROPIC_KEY}@llm-proxy.example.com/anthropic`,
      TWILIO_API_BASE_URL: 'http://127.0.0.1:9999',
    });
    expect(JSON.stringify(described)).not.toContain(FAKE_DB_PASSWORD);
    expect(JSON.stringify(described)).not.toContain(FAKE_ANTHROPIC_KEY);
    expect(described.PUBLIC_BASE_URL).toBe('https://[redacted]@herald.example.com/');
    expect(described.ANTHROPIC_BASE_URL).toContain('llm-proxy.example.com/anthropic');
    expect(described.TWILIO_API_BASE_URL).toBe('http://127.0.0.1:9999');
  });
});
