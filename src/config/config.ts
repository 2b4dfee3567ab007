import { z } from 'zod';
import { environmentSchema, secretVariables, type Environment } from './env-schema.js';
import { ConfigurationError } from '../shared/errors.js';
import type { ModelRoles } from '../model/model-roles.js';
import { defaultFallbacks } from '../model/model-profiles.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/** Turns the flat environment into the grouped settings the rest of Herald reads. */
function toConfig(environment: Environment) {
  const twilioConfigured = Boolean(environment.TWILIO_ACCOUNT_SID && environment.TWILIO_AUTH_TOKEN);
  return {
    nodeEnv: environment.NODE_ENV,
    logLevel: environment.LOG_LEVEL,
    http: {
      host: environment.HOST,
      port: environment.PORT,
      publicBaseUrl: environment.PUBLIC_BASE_URL ?? `http://localhost:${environment.PORT}`,
      /**
       * The origin of links sent to people (pages, connect links, calendar feeds, OAuth
       * redirects): PUBLIC_BASE_URL without any user and password in it, which are the
       * operator's (for Twilio's requests), never the user's to see.
       */
      linkBaseUrl: stripCredentials(environment.PUBLIC_BASE_URL ?? `http://localhost:${environment.PORT}`),
      bodyLimitBytes: environment.WEBHOOK_BODY_LIMIT_BYTES,
      rateLimitPerMinute: environment.WEBHOOK_RATE_LIMIT_PER_MINUTE,
    },
    /**
     * Webhooks the database cannot take (unreachable, or no answer within `spoolAfterMs`) are
     * written here and answered 200, then replayed (src/conversation/inbound-spool.ts). A bound
     * of 0 turns the spool off.
     */
    inboundSpool: {
      directory: environment.INBOUND_SPOOL_DIR ?? `${withoutTrailingSlashes(environment.DATA_DIR)}/spool`,
      maxFiles: environment.INBOUND_SPOOL_MAX_FILES,
      maxBytes: environment.INBOUND_SPOOL_MAX_BYTES,
      spoolAfterMs: environment.INBOUND_SPOOL_AFTER_MS,
    },
    database: {
      url: environment.DATABASE_URL,
      dataDir: environment.DATA_DIR,
      poolSize: environment.DATABASE_POOL_SIZE,
      /** How long start-up waits for DATABASE_URL's server before giving up (exit 1). */
      connectTimeoutMs: environment.DATABASE_CONNECT_TIMEOUT_MS,
      /** How long a transaction waits for a pooled connection before failing (Prisma's maxWait). */
      connectionWaitMs: environment.DATABASE_CONNECTION_WAIT_MS,
    },
    /** On SIGTERM: how long turns in flight may finish before they are handed back to the lease. */
    shutdownGraceMs: environment.SHUTDOWN_GRACE_MS,
    twilio: {
      /** "console" when credentials are absent: replies are logged and recorded, not sent. */
      transport: twilioConfigured ? ('twilio' as const) : ('console' as const),
      accountSid: environment.TWILIO_ACCOUNT_SID,
      authToken: environment.TWILIO_AUTH_TOKEN,
      smsFrom: environment.TWILIO_SMS_FROM,
      whatsappFrom: environment.TWILIO_WHATSAPP_FROM,
      apiBaseUrl: environment.TWILIO_API_BASE_URL,
      whatsappReminderContentSid: environment.TWILIO_WHATSAPP_REMINDER_CONTENT_SID,
      /** The Messaging Service with the RCS sender: RCS replies, reminders and notices go through it (Twilio falls back to SMS). */
      messagingServiceSid: environment.TWILIO_MESSAGING_SERVICE_SID,
      /** WhatsApp's "typing…" while a turn calls the model, renewed every `typingEveryMs` (it shows for up to 25 s). */
      typingIndicator: environment.TYPING_INDICATOR === 'on',
      typingEveryMs: environment.TYPING_INDICATOR_EVERY_MS,
      whatsappRoutineContentSid: environment.TWILIO_WHATSAPP_ROUTINE_CONTENT_SID,
      timeoutMs: environment.TWILIO_TIMEOUT_MS,
      /** An API key pair (SK…) Herald uses instead of the auth token for media, when set. */
      apiKey:
        environment.TWILIO_API_KEY_SID && environment.TWILIO_API_KEY_SECRET
          ? { sid: environment.TWILIO_API_KEY_SID, secret: environment.TWILIO_API_KEY_SECRET }
          : undefined,
    },
    media: {
      /** The most Herald reads of one attachment, whatever Content-Length says. */
      maxBytes: environment.MEDIA_MAX_BYTES,
      /** One attachment's whole download, redirect included. */
      timeoutMs: environment.MEDIA_TIMEOUT_MS,
      /** Delete each attachment from Twilio once its turn has read it. */
      deleteFromTwilio: environment.TWILIO_DELETE_MEDIA,
      /** Voice notes longer than this are not transcribed. */
      voiceMaxSeconds: environment.VOICE_MAX_SECONDS,
      /** The ffmpeg that converts audio the transcription endpoint does not take (AMR). */
      ffmpegPath: environment.FFMPEG_PATH,
      /** An OpenAI-compatible transcription endpoint; undefined: voice notes are not transcribed. */
      transcription: environment.TRANSCRIPTION_BASE_URL
        ? {
            baseUrl: environment.TRANSCRIPTION_BASE_URL,
            apiKey: environment.TRANSCRIPTION_API_KEY,
            model: environment.TRANSCRIPTION_MODEL,
            timeoutMs: environment.TRANSCRIPTION_TIMEOUT_MS,
            pricePerMinuteUsd: environment.TRANSCRIPTION_PRICE_PER_MINUTE,
          }
        : undefined,
    },
    /** Anthropic's web search and fetch server tools for the planner and general-agent. */
    webSearch: environment.WEB_SEARCH === 'on',
    anthropic: {
      apiKey: environment.ANTHROPIC_API_KEY,
      baseUrl: environment.ANTHROPIC_BASE_URL,
      timeoutMs: environment.ANTHROPIC_TIMEOUT_MS,
      maxRetries: environment.ANTHROPIC_MAX_RETRIES,
    },
    models: {
      planner: {
        name: environment.MODEL_PLANNER,
        fallbacks: environment.MODEL_PLANNER_FALLBACK ?? defaultFallbacks(environment.MODEL_PLANNER),
        effort: environment.MODEL_PLANNER_EFFORT,
      },
      plannerLight:
        environment.MODEL_PLANNER_LIGHT.toLowerCase() === 'none'
          ? undefined
          : {
              name: environment.MODEL_PLANNER_LIGHT,
              fallbacks: environment.MODEL_PLANNER_LIGHT_FALLBACK ?? defaultFallbacks(environment.MODEL_PLANNER_LIGHT),
              effort: environment.MODEL_PLANNER_EFFORT,
              agents: environment.MODEL_PLANNER_LIGHT_AGENTS,
            },
      agent: {
        name: environment.MODEL_AGENT,
        fallbacks: environment.MODEL_AGENT_FALLBACK ?? defaultFallbacks(environment.MODEL_AGENT),
        effort: environment.MODEL_AGENT_EFFORT,
      },
      composer: {
        name: environment.MODEL_COMPOSER,
        fallbacks: environment.MODEL_COMPOSER_FALLBACK ?? defaultFallbacks(environment.MODEL_COMPOSER),
        effort: environment.MODEL_COMPOSER_EFFORT,
      },
    } satisfies ModelRoles,
    defaultTimezone: environment.DEFAULT_TIMEZONE,
    history: {
      maxAgeHours: environment.HISTORY_MAX_AGE_HOURS,
      maxMessages: environment.HISTORY_MAX_MESSAGES,
      maxTokens: environment.HISTORY_MAX_TOKENS,
    },
    limits: {
      planTimeoutMs: environment.PLAN_TIMEOUT_MS,
      stepTimeoutMs: environment.STEP_TIMEOUT_MS,
      stepMaxRetries: environment.STEP_MAX_RETRIES,
      maxReplans: environment.MAX_REPLANS,
      maxPlanSteps: environment.MAX_PLAN_STEPS,
      /** Independent plan steps one turn runs at once (1: one at a time, in order). */
      parallelSteps: environment.PLAN_PARALLEL_STEPS,
      confirmationTtlMs: environment.CONFIRMATION_TTL_MS,
      progressAfterMs: environment.PROGRESS_AFTER_MS,
      plannerPromptTokens: environment.PLANNER_PROMPT_TOKENS,
      agentPromptTokens: environment.AGENT_PROMPT_TOKENS,
      replyMaxTokens: environment.REPLY_MAX_TOKENS,
      turnMaxModelCalls: environment.TURN_MAX_MODEL_CALLS,
      turnMaxInputTokens: environment.TURN_MAX_INPUT_TOKENS,
    },
    turns: {
      concurrency: environment.TURN_CONCURRENCY,
      /** A turn's lease, renewed by heartbeat while it runs; a crashed holder's lapses after this. */
      leaseMs: environment.TURN_LEASE_MS,
      /** How often every instance looks for lapsed leases to take over. */
      leaseSweepMs: environment.TURN_LEASE_SWEEP_MS,
      /** The most of a turn's own text (a burst merged) that goes to the model; the rest is cut, and the reply says so. */
      maxMessageTokens: environment.TURN_MAX_MESSAGE_TOKENS,
    },
    reminders: {
      lateAfterMs: environment.REMINDER_LATE_AFTER_MS,
      maxLatenessMs: environment.REMINDER_MAX_LATENESS_MS,
      maxTextLength: environment.REMINDER_MAX_TEXT_LENGTH,
      maxActivePerUser: environment.REMINDER_MAX_ACTIVE_PER_USER,
      concurrency: environment.REMINDER_CONCURRENCY,
      batchSize: environment.REMINDER_BATCH_SIZE,
      /** How long after a reminder a bare "snooze" or "done" is taken as the answer to it. */
      replyWindowMs: environment.REMINDER_REPLY_WINDOW_MS,
      /** A bare "snooze" ("later"): re-delivered after this many minutes. */
      snoozeMinutes: environment.REMINDER_SNOOZE_MINUTES,
    },
    routines: {
      /** The most routines one user keeps. */
      maxPerUser: environment.ROUTINES_PER_USER,
      /** Model calls one run may make (its turn budget's cap). */
      maxModelCalls: environment.ROUTINE_MAX_MODEL_CALLS,
      /** The longest instruction (and condition) kept, in characters. */
      maxInstructionLength: environment.ROUTINE_MAX_INSTRUCTION_LENGTH,
      /** A run missed by more than this (Herald was down) is skipped and logged, not sent late. */
      maxLatenessMs: environment.ROUTINE_MAX_LATENESS_MS,
      /** Runs at once per instance. */
      concurrency: environment.ROUTINE_CONCURRENCY,
    },
    outbox: {
      /** The most SMS segments one reply may cost (each is billed); longer replies are cut. */
      smsMaxSegments: environment.SMS_MAX_SEGMENTS,
      /** How long a part Twilio keeps failing (5xx, 429, no answer) is retried, from when it was written; then it is failed. */
      retryForMs: environment.OUTBOX_RETRY_FOR_MS,
      /** A reply whose first part goes out this long after it was written starts with "Sorry for the delay —". */
      lateNoteAfterMs: environment.REPLY_LATE_NOTE_AFTER_MS,
      retryBaseMs: environment.OUTBOX_RETRY_BASE_MS,
      retryMaxMs: environment.OUTBOX_RETRY_MAX_MS,
    },
    learning: {
      /** Background fact learning from the user's own words (src/learning); false: FACT_LEARNING=off. */
      enabled: environment.FACT_LEARNING,
      /** A pass runs this long after the user's last message, and calls the model at most once per such window. */
      delayMs: environment.FACT_LEARNING_DELAY_MS,
    },
    /** The deployment's quiet hours in each user's local time ("22:00-07:00", or "off"); a user may set their own. */
    quietHours: environment.QUIET_HOURS,
    pages: {
      /** How long a page link works. */
      ttlHours: environment.PAGE_TTL_HOURS,
    },
    access: {
      /** "open": anyone may use Herald; "invite": only owners and the numbers they allowed. Unset: invite in production, else open. */
      mode: environment.ACCESS_MODE ?? (environment.NODE_ENV === 'production' ? ('invite' as const) : ('open' as const)),
      /** Admins, in E.164: always allowed, and may INVITE, REVOKE and list USERS by text. */
      ownerPhones: environment.OWNER_PHONES ?? [],
      /** Open mode: how many new numbers may become users per hour. */
      newUsersPerHour: environment.NEW_USERS_PER_HOUR,
    },
    budgets: {
      /** Per user and local day, in USD, of model cost. */
      userDailyUsd: environment.USER_DAILY_BUDGET_USD,
      /** The whole deployment per day (DEFAULT_TIMEZONE's day), in USD; undefined: no limit. */
      dailyUsd: environment.DAILY_BUDGET_USD,
    },
    observability: {
      /** Unset: no `GET /metrics` and no metrics kept. Set: Prometheus scrapes with `Authorization: Bearer <token>`. */
      metricsToken: environment.METRICS_TOKEN,
      /**
       * OpenTelemetry traces over OTLP/HTTP (protobuf); undefined: no tracing code is loaded. The
       * traces endpoint is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT
       * plus `/v1/traces`, as the OpenTelemetry specification says.
       */
      tracing:
        environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || environment.OTEL_EXPORTER_OTLP_ENDPOINT
          ? {
              tracesUrl: environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${withoutTrailingSlashes(environment.OTEL_EXPORTER_OTLP_ENDPOINT!)}/v1/traces`,
              headers: parseOtlpHeaders(environment.OTEL_EXPORTER_OTLP_HEADERS),
              serviceName: environment.OTEL_SERVICE_NAME,
            }
          : undefined,
    },
    brain: {
      /** Notes one user may keep (NOTES_MAX_PER_USER). */
      maxNotesPerUser: environment.NOTES_MAX_PER_USER,
      /** Contacts one user may keep (CONTACTS_MAX_PER_USER); a vCard import stops there and reports the rest. */
      maxContactsPerUser: environment.CONTACTS_MAX_PER_USER,
      /** An OpenAI-compatible embeddings service; unset: search by words (and trigrams) only. */
      embeddings:
        environment.EMBEDDINGS_BASE_URL && environment.EMBEDDINGS_API_KEY && environment.EMBEDDINGS_MODEL
          ? {
              baseUrl: environment.EMBEDDINGS_BASE_URL,
              apiKey: environment.EMBEDDINGS_API_KEY,
              model: environment.EMBEDDINGS_MODEL,
              dimensions: environment.EMBEDDINGS_DIMENSIONS,
              timeoutMs: environment.EMBEDDINGS_TIMEOUT_MS,
              batchSize: environment.EMBEDDINGS_BATCH_SIZE,
              pricePerMillionTokens: environment.EMBEDDINGS_PRICE_PER_MTOK,
            }
          : undefined,
    },
    connections: {
      /** Unset outside production: a development key is kept under DATA_DIR (src/connections/encryption-key.ts). */
      encryptionKey: environment.HERALD_ENCRYPTION_KEY,
      linkTtlMinutes: environment.CONNECT_LINK_TTL_MINUTES,
      /** One request to a CalDAV server or Google's API. */
      timeoutMs: environment.CALENDAR_TIMEOUT_MS,
      /**
       * Hosts and networks that are not on the public internet but that users may connect
       * accounts to (a self-hoster's own servers); everything else private is refused (src/net).
       */
      allowedHosts: environment.CONNECT_ALLOWED_HOSTS ?? [],
      /** Unset: Google accounts cannot be connected. */
      google:
        environment.GOOGLE_CLIENT_ID && environment.GOOGLE_CLIENT_SECRET
          ? {
              clientId: environment.GOOGLE_CLIENT_ID,
              clientSecret: environment.GOOGLE_CLIENT_SECRET,
              authUrl: environment.GOOGLE_OAUTH_AUTH_URL,
              tokenUrl: environment.GOOGLE_OAUTH_TOKEN_URL,
              revokeUrl: environment.GOOGLE_OAUTH_REVOKE_URL,
              apiBaseUrl: environment.GOOGLE_API_BASE_URL,
            }
          : undefined,
    },
  };
}

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs, comma-separated, values percent-encoded (the OpenTelemetry format). */
function parseOtlpHeaders(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const raw = pair.slice(at + 1).trim();
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: taken as written.
    }
    if (key) headers[key] = decoded;
  }
  return headers;
}

/** Herald's settings, grouped by concern. */
export type Config = ReturnType<typeof toConfig>;

/** The one error listing every problem, by variable name only (issue messages never echo values). */
function configurationError(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): ConfigurationError {
  const problems = issues.map((issue) => {
    const variable = issue.path.map(String).join('.') || '(environment)';
    return `  - ${variable}: ${issue.message}`;
  });
  return new ConfigurationError(`Herald cannot start; fix these settings:\n${problems.join('\n')}`);
}

/**
 * Parses and validates the environment. Every problem is reported at once, in one
 * message, naming the variables but never echoing a secret's value.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const result = environmentSchema.safeParse(source);
  if (!result.success) throw configurationError(result.error.issues);
  return toConfig(result.data);
}

/** Only what `npm run db:migrate` needs: it must not require Twilio settings to migrate a database. */
const databaseEnvironmentSchema = z.object({
  LOG_LEVEL: environmentSchema.shape.LOG_LEVEL,
  DATABASE_URL: environmentSchema.shape.DATABASE_URL,
  DATA_DIR: environmentSchema.shape.DATA_DIR,
  DATABASE_CONNECT_TIMEOUT_MS: environmentSchema.shape.DATABASE_CONNECT_TIMEOUT_MS,
});

/** The database settings alone (DATABASE_URL, DATA_DIR) and the log level, validated like {@link loadConfig}. */
export function loadDatabaseConfig(source: Record<string, string | undefined> = process.env): {
  logLevel: Config['logLevel'];
  database: Pick<Config['database'], 'url' | 'dataDir' | 'connectTimeoutMs'>;
} {
  const result = databaseEnvironmentSchema.safeParse(source);
  if (!result.success) throw configurationError(result.error.issues);
  return {
    logLevel: result.data.LOG_LEVEL,
    database: { url: result.data.DATABASE_URL, dataDir: result.data.DATA_DIR, connectTimeoutMs: result.data.DATABASE_CONNECT_TIMEOUT_MS },
  };
}

/**
 * A copy of the environment that is safe to log: secret variables show only that they
 * are set, and credentials embedded in any other URL (https://user:password@host) are
 * masked. Variables Herald does not read are left out.
 */
export function describeEnvironment(source: Record<string, string | undefined>): Record<string, string> {
  const described: Record<string, string> = {};
  for (const key of Object.keys(environmentSchema.shape)) {
    const value = source[key];
    if (value === undefined || value.trim() === '') continue;
    described[key] = (secretVariables as readonly string[]).includes(key) ? '[set]' : withoutCredentials(value);
  }
  return described;
}

/** A URL without its user and password (unchanged when it has none). */
function stripCredentials(value: string): string {
  try {
    const url = new URL(value);
    if (url.username === '' && url.password === '') return value;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return value;
  }
}

/** `value` with the user and password of a URL replaced; anything that is not a URL with credentials is unchanged. */
export function withoutCredentials(value: string): string {
  if (!value.includes('@')) return value;
  try {
    const url = new URL(value);
    if (url.username === '' && url.password === '') return value;
    url.username = '';
    url.password = '';
    return url.toString().replace('//', '//[redacted]@');
  } catch {
    return value;
  }
}
