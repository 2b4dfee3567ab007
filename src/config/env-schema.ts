import { z } from 'zod';

/** An empty string in the environment means "not set", as in most .env tooling. */
const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const integer = (fallback: number, minimum = 0) =>
  z.coerce.number().int().min(minimum).default(fallback);

const isValidTimezone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const httpUrl = z.url({ protocol: /^https?$/ });

/**
 * The environment contract. `.env.example` documents every variable; this schema is its
 * single source of truth. Each limit from DESIGN.md ("Resolved constants") is overridable.
 */
export const environmentSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    HOST: z.string().default('0.0.0.0'),
    PORT: integer(3000, 0),

    DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
    DATA_DIR: z.string().default('.data'),
    DATABASE_POOL_SIZE: integer(10, 1),

    PUBLIC_BASE_URL: optionalString.pipe(httpUrl.optional()),

    TWILIO_ACCOUNT_SID: optionalString.pipe(z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must look like AC followed by 32 hex characters').optional()),
    TWILIO_AUTH_TOKEN: optionalString,
    TWILIO_SMS_FROM: optionalString,
    TWILIO_WHATSAPP_FROM: optionalString,
    TWILIO_API_BASE_URL: optionalString.pipe(httpUrl.optional()),
    TWILIO_WHATSAPP_REMINDER_CONTENT_SID: optionalString,

    ANTHROPIC_API_KEY: optionalString,
    ANTHROPIC_BASE_URL: optionalString.pipe(httpUrl.optional()),
    ANTHROPIC_TIMEOUT_MS: integer(30_000, 1),
    ANTHROPIC_MAX_RETRIES: integer(2, 0),

    MODEL_PLANNER: z.string().default('claude-sonnet-4-6'),
    MODEL_AGENT: z.string().default('claude-haiku-4-5'),
    MODEL_COMPOSER: z.string().default('claude-haiku-4-5'),

    DEFAULT_TIMEZONE: z.string().default('UTC').refine(isValidTimezone, 'must be an IANA time zone such as Europe/London'),

    HISTORY_MAX_AGE_HOURS: integer(24, 1),
    HISTORY_MAX_MESSAGES: integer(20, 1),
    HISTORY_MAX_TOKENS: integer(4000, 1),
    PLAN_TIMEOUT_MS: integer(120_000, 1),
    STEP_TIMEOUT_MS: integer(60_000, 1),
    STEP_MAX_RETRIES: integer(2, 0),
    MAX_REPLANS: integer(3, 0),
    MAX_PLAN_STEPS: integer(10, 1),
    CONFIRMATION_TTL_MS: integer(300_000, 1),
    PROGRESS_AFTER_MS: integer(10_000, 1),
    PLANNER_PROMPT_TOKENS: integer(8000, 1),
    AGENT_PROMPT_TOKENS: integer(4000, 1),
    REPLY_MAX_TOKENS: integer(1024, 1),

    TURN_CONCURRENCY: integer(8, 1),
    WEBHOOK_BODY_LIMIT_BYTES: integer(64 * 1024, 1024),
    WEBHOOK_RATE_LIMIT_PER_MINUTE: integer(600, 1),
    OUTBOX_MAX_ATTEMPTS: integer(5, 1),
    OUTBOX_RETRY_BASE_MS: integer(500, 1),
    OUTBOX_RETRY_MAX_MS: integer(30_000, 1),
  })
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
    if (environment.TWILIO_WHATSAPP_FROM && !environment.TWILIO_WHATSAPP_FROM.startsWith('whatsapp:')) {
      context.addIssue({ code: 'custom', path: ['TWILIO_WHATSAPP_FROM'], message: 'must start with "whatsapp:", e.g. whatsapp:+14155238886' });
    }
    if (environment.NODE_ENV === 'production') {
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
    }
  });

/** The parsed environment, exactly as the schema produces it. */
export type Environment = z.infer<typeof environmentSchema>;

/** Variables whose values must never be printed or logged. */
export const secretVariables = ['TWILIO_AUTH_TOKEN', 'ANTHROPIC_API_KEY', 'DATABASE_URL'] as const;
