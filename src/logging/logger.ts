import { pino, type Logger as PinoLogger, type LoggerOptions } from 'pino';

/** Herald's structured logger (pino). Child loggers carry the ids of what they log about. */
export type Logger = PinoLogger;

/**
 * Paths that are never written, at any level: secrets and credentials. Message bodies are
 * kept out of info-level logs by never passing them at info; see src/logging/README.md.
 */
const redactedPaths = [
  'authToken',
  'apiKey',
  'password',
  'headers.authorization',
  'headers["x-twilio-signature"]',
  'request.headers.authorization',
  'request.headers["x-twilio-signature"]',
  '*.authToken',
  '*.apiKey',
  '*.password',
];

/** An international number (E.164, possibly after `whatsapp:`): a plus and 7 to 15 digits. */
const PHONE_NUMBER = /\+(\d{3,11})(\d{4})(?!\d)/g;

/**
 * Masks phone numbers in a log line down to their last four digits (`+14155550123` →
 * `+*******0123`): enough to tell users apart when debugging, not enough to text them.
 * Only `+`-prefixed digits are touched, so ids, counts and timings are left alone, and in
 * JSON such numbers only ever occur inside strings, so the line stays valid.
 */
export function maskPhoneNumbers(line: string): string {
  return line.replace(PHONE_NUMBER, (_match, hidden: string, last: string) => `+${'*'.repeat(hidden.length)}${last}`);
}

/** Options for {@link createLogger}. */
export interface CreateLoggerOptions {
  level?: string;
  /** Human-readable output (local development on a terminal). */
  pretty?: boolean;
  /** Where JSON lines go; defaults to stdout. */
  destination?: pino.DestinationStream;
}

/** Builds the process logger. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level ?? 'info',
    base: { service: 'herald' },
    redact: { paths: redactedPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Every line, whatever logged it (a transport's address, an error naming a number):
    // phone numbers keep only their last four digits.
    hooks: { streamWrite: maskPhoneNumbers },
  };
  if (options.destination) return pino(loggerOptions, options.destination);
  if (options.pretty) {
    return pino({
      ...loggerOptions,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' } },
    });
  }
  return pino(loggerOptions);
}

/** A logger that writes nothing (tests that do not inspect logs). */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
