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
