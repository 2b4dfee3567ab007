import { environmentSchema, secretVariables, type Environment } from './env-schema.js';
import { ConfigurationError } from '../shared/errors.js';

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
      bodyLimitBytes: environment.WEBHOOK_BODY_LIMIT_BYTES,
      rateLimitPerMinute: environment.WEBHOOK_RATE_LIMIT_PER_MINUTE,
    },
    database: {
      url: environment.DATABASE_URL,
      dataDir: environment.DATA_DIR,
      poolSize: environment.DATABASE_POOL_SIZE,
    },
    twilio: {
      /** "console" when credentials are absent: replies are logged and recorded, not sent. */
      transport: twilioConfigured ? ('twilio' as const) : ('console' as const),
      accountSid: environment.TWILIO_ACCOUNT_SID,
      authToken: environment.TWILIO_AUTH_TOKEN,
      smsFrom: environment.TWILIO_SMS_FROM,
      whatsappFrom: environment.TWILIO_WHATSAPP_FROM,
      apiBaseUrl: environment.TWILIO_API_BASE_URL,
      whatsappReminderContentSid: environment.TWILIO_WHATSAPP_REMINDER_CONTENT_SID,
    },
    anthropic: {
      apiKey: environment.ANTHROPIC_API_KEY,
      baseUrl: environment.ANTHROPIC_BASE_URL,
      timeoutMs: environment.ANTHROPIC_TIMEOUT_MS,
      maxRetries: environment.ANTHROPIC_MAX_RETRIES,
    },
    models: {
      planner: environment.MODEL_PLANNER,
      agent: environment.MODEL_AGENT,
      composer: environment.MODEL_COMPOSER,
    },
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
      confirmationTtlMs: environment.CONFIRMATION_TTL_MS,
      progressAfterMs: environment.PROGRESS_AFTER_MS,
      plannerPromptTokens: environment.PLANNER_PROMPT_TOKENS,
      agentPromptTokens: environment.AGENT_PROMPT_TOKENS,
      replyMaxTokens: environment.REPLY_MAX_TOKENS,
    },
    turns: { concurrency: environment.TURN_CONCURRENCY },
    outbox: {
      maxAttempts: environment.OUTBOX_MAX_ATTEMPTS,
      retryBaseMs: environment.OUTBOX_RETRY_BASE_MS,
      retryMaxMs: environment.OUTBOX_RETRY_MAX_MS,
    },
  };
}

/** Herald's settings, grouped by concern. */
export type Config = ReturnType<typeof toConfig>;

/**
 * Parses and validates the environment. Every problem is reported at once, in one
 * message, naming the variables but never echoing a secret's value.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const result = environmentSchema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const variable = issue.path.join('.') || '(environment)';
      return `  - ${variable}: ${issue.message}`;
    });
    throw new ConfigurationError(`Herald cannot start; fix these settings:\n${problems.join('\n')}`);
  }
  return toConfig(result.data);
}

/** A copy of the environment that is safe to log: secrets are masked. */
export function describeEnvironment(source: Record<string, string | undefined>): Record<string, string> {
  const described: Record<string, string> = {};
  for (const key of Object.keys(environmentSchema.shape)) {
    const value = source[key];
    if (value === undefined || value === '') continue;
    described[key] = (secretVariables as readonly string[]).includes(key) ? '[set]' : value;
  }
  return described;
}
