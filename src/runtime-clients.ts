import type { Config } from './config/config.js';
import type { Logger } from './logging/logger.js';
import { AnthropicModel } from './model/anthropic-model.js';
import type { ModelClient } from './model/model-client.js';
import { UnconfiguredModel } from './model/unconfigured-model.js';
import { warnAboutUnknownModels } from './model/model-roles.js';
import { ConsoleTransport } from './outbox/console-transport.js';
import type { MessageTransport } from './outbox/message-transport.js';
import { TwilioTransport } from './outbox/twilio-transport.js';
import { OneTap } from './outbox/one-tap.js';
import { ContentShapes } from './outbox/content-shapes.js';
import { TwilioContentApi } from './outbox/content-api.js';
import { TwilioTypingApi } from './outbox/twilio-typing.js';
import { TypingIndicators } from './turns/typing-indicator.js';
import { type Clock } from './shared/clock.js';
import type { PrismaClient } from './db/prisma-types.js';
import { randomIds } from './shared/ids.js';
import { type HeraldMetrics } from './observability/metrics.js';

// The clients of outside services the composition root (runtime.ts) builds from configuration.

/** The model client: Anthropic when ANTHROPIC_API_KEY is set, else one that says no model is configured. */
export function createModel(config: Config, logger: Logger, metrics: HeraldMetrics): ModelClient {
  if (!config.anthropic.apiKey) {
    logger.warn('ANTHROPIC_API_KEY is not set: Herald will answer every message by saying it has no model configured');
    return new UnconfiguredModel();
  }
  warnAboutUnknownModels(config.models, logger);
  const anthropic = new AnthropicModel({
    apiKey: config.anthropic.apiKey,
    baseUrl: config.anthropic.baseUrl,
    timeoutMs: config.anthropic.timeoutMs,
    maxRetries: config.anthropic.maxRetries,
    ...(metrics.enabled ? { onRateLimited: (model: string) => metrics.modelRateLimited(model) } : {}),
  });
  return anthropic;
}

/**
 * With Twilio configured: buttons for confirmations and choices (the Content API, contents
 * kept by SID) and WhatsApp's typing indicator (unless TYPING_INDICATOR=off). In local mode
 * (console transport) neither exists: the dev phone shows the text form.
 */
export function twilioExtras(config: Config, prisma: PrismaClient, clock: Clock, logger: Logger): { oneTap?: OneTap; shapes?: ContentShapes; typing?: TypingIndicators } {
  const { accountSid, authToken, apiBaseUrl, timeoutMs } = config.twilio;
  if (config.twilio.transport !== 'twilio' || !accountSid || !authToken) return {};
  const client = { accountSid, authToken, apiBaseUrl, timeoutMs };
  const shapes = new ContentShapes(prisma, new TwilioContentApi(client));
  return {
    shapes,
    oneTap: new OneTap(shapes, logger.child({ component: 'one-tap' })),
    ...(config.twilio.typingIndicator ? { typing: new TypingIndicators({ prisma, api: new TwilioTypingApi(client), clock, everyMs: config.twilio.typingEveryMs }) } : {}),
  };
}

/** Twilio when its credentials are set; else replies are printed to the console (local mode). */
export function createTransport(config: Config, logger: Logger): MessageTransport {
  const { accountSid, authToken, apiBaseUrl } = config.twilio;
  if (config.twilio.transport === 'twilio' && accountSid && authToken) {
    // Replies go out only from a configured sender (never the webhook's To): say which channel cannot answer.
    if (!config.twilio.smsFrom) logger.warn('TWILIO_SMS_FROM is not set: SMS messages are received, but their replies will fail');
    if (!config.twilio.whatsappFrom) logger.warn('TWILIO_WHATSAPP_FROM is not set: WhatsApp messages are received, but their replies will fail');
    return new TwilioTransport({ accountSid, authToken, apiBaseUrl, timeoutMs: config.twilio.timeoutMs });
  }
  logger.warn('Twilio credentials are not set: replies are printed to this console instead of being sent');
  return new ConsoleTransport(logger.child({ component: 'console-transport' }), randomIds);
}
