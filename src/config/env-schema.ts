import { z } from 'zod';
import { parseTwilioAddress } from '../channels/phone-number.js';
import { isValidTimezone } from '../shared/time-zones.js';
import { parseAllowedHosts } from '../net/allowed-hosts.js';

/**
 * An empty (or blank) value in the environment means "not set", as in most .env tooling
 * and in docker-compose's `${VAR:-}`: the variable's default applies. Every field goes
 * through this, so `PORT=` gives 3000 rather than 0 and `NODE_ENV=` gives development.
 */
const unsetWhenEmpty = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema);

const optionalString = unsetWhenEmpty(z.string().trim().optional());

const withDefault = (fallback: string) => unsetWhenEmpty(z.string().trim().default(fallback));

const integer = (fallback: number, minimum = 0, maximum = Number.MAX_SAFE_INTEGER) =>
  unsetWhenEmpty(
    z.coerce
      .string()
      .trim()
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(minimum).max(maximum))
      .default(fallback),
  );

/**
 * A comma-separated list of model names, in order. Unset: the default (the previous
 * generation of the same tier); "none": no fallback at all.
 */
const modelList = unsetWhenEmpty(
  z
    .string()
    .trim()
    .transform((value) => (value.toLowerCase() === 'none' ? [] : value.split(',').map((name) => name.trim()).filter(Boolean)))
    .optional(),
);

/** A yes/no switch: true/false, 1/0, yes/no or on/off, any case. */
const flag = (fallback: boolean) =>
  unsetWhenEmpty(
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((value) => ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(value), 'must be true or false (or on/off)')
      .transform((value) => ['true', '1', 'yes', 'on'].includes(value))
      .default(fallback),
  );

const effort = (fallback: 'low' | 'medium' | 'high') => unsetWhenEmpty(z.enum(['low', 'medium', 'high']).default(fallback));


/** Parses `value` as a URL and checks its scheme; never echoes the value (it may hold a password). */
const urlWithScheme = (schemes: string[], description: string, extra?: (url: URL) => string | undefined) =>
  z.string().superRefine((value, context) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      context.addIssue({ code: 'custom', message: `must be ${description}` });
      return;
    }
    if (!schemes.includes(url.protocol.replace(/:$/, ''))) {
      context.addIssue({ code: 'custom', message: `must be ${description}` });
      return;
    }
    const problem = extra?.(url);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

const httpUrl = urlWithScheme(['http', 'https'], 'an http:// or https:// URL', (url) =>
  url.hostname === '' ? 'must name a host' : undefined,
);

/** The base Twilio's signature is computed against: base + request path + query, so no query or fragment of its own. */
const publicBaseUrl = urlWithScheme(['http', 'https'], 'an http:// or https:// URL such as https://herald.example.com', (url) => {
  if (url.hostname === '') return 'must name a host';
  if (url.search !== '' || url.hash !== '') return 'must not have a query string or fragment (Herald appends the webhook path to it)';
  return undefined;
});

/** 32 bytes, written as 64 hex characters or as base64 (standard or URL-safe). */
function isEncryptionKey(value: string): boolean {
  if (/^[0-9a-f]{64}$/i.test(value)) return true;
  return /^[\w+/-]{43}=?$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

/** US dollars, e.g. 0.50; at most six decimals (Turn.costUsd's precision). */
const usd = z.coerce
  .string()
  .trim()
  .regex(/^\d+(\.\d{1,6})?$/, 'must be an amount in US dollars such as 0.50')
  .transform(Number);

/** Comma-separated phone numbers in international form, normalised to E.164. */
const phoneList = z
  .string()
  .trim()
  .transform((value, context) => {
    const phones: string[] = [];
    for (const [index, entry] of value.split(',').map((part) => part.trim()).filter(Boolean).entries()) {
      const parsed = parseTwilioAddress(entry);
      if (!parsed || parsed.channel !== 'sms') {
        // The number itself is not echoed: an owner's phone is personal data in a log.
        context.addIssue({ code: 'custom', message: `entry ${index + 1} is not a phone number in international form, such as +15551234567` });
        return z.NEVER;
      }
      if (!phones.includes(parsed.phone)) phones.push(parsed.phone);
    }
    return phones;
  });

/** Comma-separated hosts, host:port and CIDR networks users may connect accounts to although they are not public (src/net). */
const allowedHostList = z
  .string()
  .trim()
  .transform((value, context) => {
    const parsed = parseAllowedHosts(value);
    if (parsed.ok) return parsed.entries;
    context.addIssue({ code: 'custom', message: `"${parsed.entry}" is not a host (caldav.home.lan), a host and port (192.168.1.20:5232, [fd00::20]:993) or a network (10.0.0.0/8)` });
    return z.NEVER;
  });

const postgresUrl = urlWithScheme(['postgres', 'postgresql'], 'a postgres:// or postgresql:// URL');

/**
 * The environment contract. `.env.example` documents every variable; this schema is its
 * single source of truth. Each limit from docs/ARCHITECTURE.md ("Defaults") is overridable.
 */
export const environmentSchema = z
  .object({
    NODE_ENV: unsetWhenEmpty(z.enum(['development', 'test', 'production']).default('development')),
    LOG_LEVEL: unsetWhenEmpty(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
    HOST: withDefault('0.0.0.0'),
    PORT: integer(3000, 0, 65_535),

    DATABASE_URL: unsetWhenEmpty(postgresUrl.optional()),
    DATA_DIR: withDefault('.data'),
    DATABASE_POOL_SIZE: integer(10, 1),
    DATABASE_CONNECTION_WAIT_MS: integer(60_000, 1_000),
    DATABASE_CONNECT_TIMEOUT_MS: integer(0, 0),
    SHUTDOWN_GRACE_MS: integer(20_000, 0),

    PUBLIC_BASE_URL: unsetWhenEmpty(publicBaseUrl.optional()),

    TWILIO_ACCOUNT_SID: unsetWhenEmpty(z.string().trim().regex(/^AC[0-9a-fA-F]{32}$/, 'must look like AC followed by 32 hex characters').optional()),
    TWILIO_AUTH_TOKEN: optionalString,
    TWILIO_SMS_FROM: optionalString,
    TWILIO_WHATSAPP_FROM: unsetWhenEmpty(
      z.string().trim().startsWith('whatsapp:', 'must start with "whatsapp:", e.g. whatsapp:+14155238886').optional(),
    ),
    TWILIO_API_BASE_URL: unsetWhenEmpty(httpUrl.optional()),
    TWILIO_WHATSAPP_REMINDER_CONTENT_SID: optionalString,
    TWILIO_WHATSAPP_ROUTINE_CONTENT_SID: optionalString,
    TWILIO_TIMEOUT_MS: integer(15_000, 1),
    TWILIO_API_KEY_SID: unsetWhenEmpty(z.string().trim().regex(/^SK[0-9a-fA-F]{32}$/, 'must look like SK followed by 32 hex characters').optional()),
    TWILIO_API_KEY_SECRET: optionalString,
    TWILIO_DELETE_MEDIA: flag(true),
    TWILIO_MESSAGING_SERVICE_SID: unsetWhenEmpty(z.string().trim().regex(/^MG[0-9a-fA-F]{32}$/, 'must look like MG followed by 32 hex characters').optional()),
    TYPING_INDICATOR: unsetWhenEmpty(z.enum(['on', 'off']).default('on')),
    TYPING_INDICATOR_EVERY_MS: integer(20_000, 1_000, 25_000),

    MEDIA_MAX_BYTES: integer(10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    MEDIA_TIMEOUT_MS: integer(20_000, 1),
    TRANSCRIPTION_BASE_URL: unsetWhenEmpty(httpUrl.optional()),
    TRANSCRIPTION_API_KEY: optionalString,
    TRANSCRIPTION_MODEL: withDefault('gpt-4o-mini-transcribe'),
    TRANSCRIPTION_TIMEOUT_MS: integer(60_000, 1),
    TRANSCRIPTION_PRICE_PER_MINUTE: unsetWhenEmpty(usd.default(0.003)),
    VOICE_MAX_SECONDS: integer(300, 1, 3600),
    FFMPEG_PATH: withDefault('ffmpeg'),
    WEB_SEARCH: unsetWhenEmpty(z.enum(['on', 'off']).default('on')),

    ANTHROPIC_API_KEY: optionalString,
    ANTHROPIC_BASE_URL: unsetWhenEmpty(httpUrl.optional()),
    ANTHROPIC_TIMEOUT_MS: integer(30_000, 1),
    ANTHROPIC_MAX_RETRIES: integer(2, 0),

    MODEL_PLANNER: withDefault('claude-sonnet-5-5'),
    MODEL_AGENT: withDefault('claude-haiku-5-5'),
    MODEL_COMPOSER: withDefault('claude-haiku-5-5'),
    MODEL_PLANNER_LIGHT: withDefault('claude-haiku-5-5'),
    MODEL_PLANNER_FALLBACK: modelList,
    MODEL_PLANNER_LIGHT_FALLBACK: modelList,
    // Agents whose requests the light planner plans; "none": only messages that point to no agent.
    MODEL_PLANNER_LIGHT_AGENTS: withDefault('memory-agent,list-agent').transform((value) =>
      value.toLowerCase() === 'none' ? [] : value.split(',').map((name) => name.trim()).filter(Boolean),
    ),
    MODEL_AGENT_FALLBACK: modelList,
    MODEL_COMPOSER_FALLBACK: modelList,
    MODEL_PLANNER_EFFORT: effort('medium'),
    MODEL_AGENT_EFFORT: effort('low'),
    MODEL_COMPOSER_EFFORT: effort('low'),
    TURN_MAX_MODEL_CALLS: integer(12, 2),
    TURN_MAX_INPUT_TOKENS: integer(100_000, 1000),

    DEFAULT_TIMEZONE: withDefault('UTC').refine(isValidTimezone, 'must be an IANA time zone such as Europe/London'),

    HISTORY_MAX_AGE_HOURS: integer(24, 1),
    HISTORY_MAX_MESSAGES: integer(20, 1),
    HISTORY_MAX_TOKENS: integer(4000, 1),
    PLAN_TIMEOUT_MS: integer(120_000, 1),
    STEP_TIMEOUT_MS: integer(60_000, 1),
    STEP_MAX_RETRIES: integer(2, 0),
    MAX_REPLANS: integer(3, 0),
    MAX_PLAN_STEPS: integer(10, 1),
    PLAN_PARALLEL_STEPS: integer(3, 1, 10),
    CONFIRMATION_TTL_MS: integer(300_000, 1),
    PROGRESS_AFTER_MS: integer(10_000, 1),
    PLANNER_PROMPT_TOKENS: integer(8000, 1),
    AGENT_PROMPT_TOKENS: integer(4000, 1),
    REPLY_MAX_TOKENS: integer(1024, 1),

    TURN_CONCURRENCY: integer(100, 1),
    TURN_LEASE_MS: integer(3_000, 1_000),
    TURN_LEASE_SWEEP_MS: integer(1_000, 100),
    TURN_MAX_MESSAGE_TOKENS: integer(4_000, 50),
    SMS_MAX_SEGMENTS: integer(10, 1, 1000),
    WEBHOOK_BODY_LIMIT_BYTES: integer(64 * 1024, 1024),
    WEBHOOK_RATE_LIMIT_PER_MINUTE: integer(600, 1),
    INBOUND_SPOOL_DIR: optionalString,
    INBOUND_SPOOL_MAX_FILES: integer(20_000, 0),
    INBOUND_SPOOL_MAX_BYTES: integer(100 * 1024 * 1024, 0),
    INBOUND_SPOOL_AFTER_MS: integer(5_000, 0),
    OUTBOX_RETRY_FOR_MS: integer(60 * 60 * 1000, 0),
    REPLY_LATE_NOTE_AFTER_MS: integer(120_000, 0),
    OUTBOX_RETRY_BASE_MS: integer(500, 1),
    OUTBOX_RETRY_MAX_MS: integer(30_000, 1),

    REMINDER_LATE_AFTER_MS: integer(60_000, 0),
    REMINDER_MAX_LATENESS_MS: integer(6 * 60 * 60 * 1000, 0),
    REMINDER_MAX_TEXT_LENGTH: integer(500, 1),
    REMINDER_MAX_ACTIVE_PER_USER: integer(500, 1),
    REMINDER_CONCURRENCY: integer(2, 1),
    REMINDER_BATCH_SIZE: integer(25, 1),
    REMINDER_REPLY_WINDOW_MS: integer(30 * 60 * 1000, 0),
    REMINDER_SNOOZE_MINUTES: integer(10, 1),

    ROUTINES_PER_USER: integer(10, 0),
    ROUTINE_MAX_MODEL_CALLS: integer(8, 1),
    ROUTINE_MAX_INSTRUCTION_LENGTH: integer(2_000, 1),
    ROUTINE_MAX_LATENESS_MS: integer(60 * 60 * 1000, 0),
    ROUTINE_CONCURRENCY: integer(50, 1),

    PAGE_TTL_HOURS: integer(72, 1, 24 * 366),

    FACT_LEARNING: flag(true),
    FACT_LEARNING_DELAY_MS: integer(120_000, 0),
    QUIET_HOURS: unsetWhenEmpty(
      z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^(off|([01]?\d|2[0-3]):[0-5]\d-([01]?\d|2[0-3]):[0-5]\d)$/, 'must be HH:MM-HH:MM (e.g. 22:00-07:00) or off')
        .default('22:00-07:00'),
    ),

    HERALD_ENCRYPTION_KEY: unsetWhenEmpty(
      z.string().trim().refine(isEncryptionKey, 'must be 32 random bytes as 64 hex characters or base64 (e.g. the output of: openssl rand -base64 32)').optional(),
    ),
    CONNECT_LINK_TTL_MINUTES: integer(15, 1, 24 * 60),
    CALENDAR_TIMEOUT_MS: integer(15_000, 1),
    CONNECT_ALLOWED_HOSTS: unsetWhenEmpty(allowedHostList.optional()),
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    GOOGLE_OAUTH_AUTH_URL: unsetWhenEmpty(httpUrl.default('https://accounts.google.com/o/oauth2/v2/auth')),
    GOOGLE_OAUTH_TOKEN_URL: unsetWhenEmpty(httpUrl.default('https://oauth2.googleapis.com/token')),
    GOOGLE_OAUTH_REVOKE_URL: unsetWhenEmpty(httpUrl.default('https://oauth2.googleapis.com/revoke')),
    GOOGLE_API_BASE_URL: unsetWhenEmpty(httpUrl.default('https://www.googleapis.com/')),

    ACCESS_MODE: unsetWhenEmpty(z.enum(['open', 'invite']).optional()),
    OWNER_PHONES: unsetWhenEmpty(phoneList.optional()),
    NEW_USERS_PER_HOUR: integer(30, 1),
    USER_DAILY_BUDGET_USD: unsetWhenEmpty(usd.default(0.5)),
    DAILY_BUDGET_USD: unsetWhenEmpty(usd.optional()),

    METRICS_TOKEN: unsetWhenEmpty(z.string().trim().min(16, 'must be at least 16 characters (e.g. the output of: openssl rand -hex 24)').optional()),
    OTEL_EXPORTER_OTLP_ENDPOINT: unsetWhenEmpty(httpUrl.optional()),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: unsetWhenEmpty(httpUrl.optional()),
    OTEL_EXPORTER_OTLP_HEADERS: optionalString,
    OTEL_SERVICE_NAME: withDefault('herald'),
    EMBEDDINGS_BASE_URL: unsetWhenEmpty(httpUrl.optional()),
    EMBEDDINGS_API_KEY: optionalString,
    EMBEDDINGS_MODEL: optionalString,
    EMBEDDINGS_DIMENSIONS: unsetWhenEmpty(z.string().trim().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(1).max(16_000)).optional()),
    EMBEDDINGS_TIMEOUT_MS: integer(3_000, 1),
    EMBEDDINGS_BATCH_SIZE: integer(64, 1, 2048),
    EMBEDDINGS_PRICE_PER_MTOK: unsetWhenEmpty(usd.default(0.13)),
    NOTES_MAX_PER_USER: integer(10_000, 1),
    CONTACTS_MAX_PER_USER: integer(5_000, 1),
  })
  // Rules across variables. `when` makes them run even when some variable failed its own
  // check (zod skips object refinements after a failed enum or type by default), so one
  // start-up lists every problem. Values may then be raw strings, hence only truthiness
  // and equality are used here.
  .superRefine((environment, context) => {
    const twilioParts = [environment.TWILIO_ACCOUNT_SID, environment.TWILIO_AUTH_TOKEN];
    if (environment.TWILIO_ACCOUNT_SID && !environment.TWILIO_AUTH_TOKEN) {
      context.addIssue({ code: 'custom', path: ['TWILIO_AUTH_TOKEN'], message: 'is required when TWILIO_ACCOUNT_SID is set' });
    }
    if (twilioParts.every(Boolean) && !environment.TWILIO_SMS_FROM && !environment.TWILIO_WHATSAPP_FROM) {
      context.addIssue({
        code: 'custom',
        path: ['TWILIO_SMS_FROM'],
        message: 'set TWILIO_SMS_FROM or TWILIO_WHATSAPP_FROM so Herald has a number to reply from',
      });
    }
    if (Boolean(environment.TWILIO_API_KEY_SID) !== Boolean(environment.TWILIO_API_KEY_SECRET)) {
      context.addIssue({ code: 'custom', path: ['TWILIO_API_KEY_SECRET'], message: 'set both TWILIO_API_KEY_SID and TWILIO_API_KEY_SECRET, or neither' });
    }
    const embeddings = [environment.EMBEDDINGS_BASE_URL, environment.EMBEDDINGS_API_KEY, environment.EMBEDDINGS_MODEL];
    if (embeddings.some(Boolean) && !embeddings.every(Boolean)) {
      context.addIssue({ code: 'custom', path: ['EMBEDDINGS_MODEL'], message: 'set EMBEDDINGS_BASE_URL, EMBEDDINGS_API_KEY and EMBEDDINGS_MODEL together, or none of them' });
    }
    if (Boolean(environment.GOOGLE_CLIENT_ID) !== Boolean(environment.GOOGLE_CLIENT_SECRET)) {
      context.addIssue({ code: 'custom', path: ['GOOGLE_CLIENT_SECRET'], message: 'set both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, or neither' });
    }
    if (environment.NODE_ENV === 'production') {
      // Without these a production Herald would run but never really answer anyone:
      // replies would go to the console transport, or say that no model is configured.
      if (!environment.TWILIO_ACCOUNT_SID) {
        context.addIssue({ code: 'custom', path: ['TWILIO_ACCOUNT_SID'], message: 'is required in production: without it replies are only printed, never sent' });
      }
      if (!environment.ANTHROPIC_API_KEY) {
        context.addIssue({ code: 'custom', path: ['ANTHROPIC_API_KEY'], message: 'is required in production: without it Herald cannot answer' });
      }
      if (!environment.TWILIO_AUTH_TOKEN) {
        context.addIssue({
          code: 'custom',
          path: ['TWILIO_AUTH_TOKEN'],
          message: 'is required in production: without it webhooks cannot be verified',
        });
      }
      if (!environment.PUBLIC_BASE_URL) {
        context.addIssue({
          code: 'custom',
          path: ['PUBLIC_BASE_URL'],
          message: 'is required in production: Twilio signs the public URL it calls',
        });
      }
      if (!environment.HERALD_ENCRYPTION_KEY) {
        context.addIssue({ code: 'custom', path: ['HERALD_ENCRYPTION_KEY'], message: 'is required in production: connected accounts\' passwords and tokens are encrypted with it' });
      }
    }
  }, { when: () => true });

/** The parsed environment, exactly as the schema produces it. */
export type Environment = z.infer<typeof environmentSchema>;

/** Variables whose values must never be printed or logged. */
export const secretVariables = [
  'TWILIO_AUTH_TOKEN',
  'TWILIO_API_KEY_SECRET',
  'ANTHROPIC_API_KEY',
  'TRANSCRIPTION_API_KEY',
  'EMBEDDINGS_API_KEY',
  'DATABASE_URL',
  'HERALD_ENCRYPTION_KEY',
  'GOOGLE_CLIENT_SECRET',
  'METRICS_TOKEN',
  'OTEL_EXPORTER_OTLP_HEADERS',
] as const;
