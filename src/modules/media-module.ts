import { z } from 'zod';
import type { Config } from '../config/config.js';
import type { PrismaClient } from '../db/prisma-types.js';
import { DEV_ACCOUNT_SID, DEV_TWILIO_PREFIX, type DevMediaStore } from '../dev/dev-media-store.js';
import type { Logger } from '../logging/logger.js';
import type { OutboundPolicy } from '../net/outbound-policy.js';
import { isValidTimezone } from '../shared/time-zones.js';
import type { Clock } from '../shared/clock.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../tools/tool.js';
import type { UserService } from '../users/user-service.js';
import { TIMEZONE_FROM_PIN_ACTION } from '../media/location.js';
import { Transcriber } from '../media/transcriber.js';
import { TwilioMediaDeleter } from '../media/twilio-media-deleter.js';
import { TwilioMediaFetcher, type TwilioMediaSource } from '../media/twilio-media-fetcher.js';
import type { ContactCards } from '../media/contact-card.js';
import { TurnMedia, type MediaRemover, type MediaSource } from '../media/turn-media.js';

/** Twilio's REST API, where media URLs live. */
const TWILIO_API = 'https://api.twilio.com';

/** What a Herald needs for media: the turn's preparer and the held action a pin's YES runs. */
export interface MediaModule {
  turnMedia: TurnMedia;
  /** Runs "make this pin's zone my time zone" after the user's YES ({@link TIMEZONE_FROM_PIN_ACTION}). */
  timezoneTool: ToolDefinition;
}

/** Builds the media pipeline from configuration. */
export function createMediaModule(options: {
  config: Config;
  prisma: PrismaClient;
  users: UserService;
  clock: Clock;
  logger: Logger;
  /**
   * The outbound policy every download hop goes through (src/net): Twilio's API as the
   * operator configured it, its redirect to the media store as any server's answer.
   */
  outbound: OutboundPolicy;
  /** Where a contact card (vCard) sent as an attachment is imported. */
  cards?: ContactCards | undefined;
  /**
   * Local mode: the dev phone's store, and this Herald's own origin once it listens. Media
   * then comes from Herald's Twilio-like dev API by the same fetcher as Twilio's.
   */
  dev?: { store: DevMediaStore; origin: () => string } | undefined;
}): MediaModule {
  const { config, logger } = options;
  const log = logger.child({ component: 'media' });
  const limits = { maxBytes: config.media.maxBytes, timeoutMs: config.media.timeoutMs };
  let source: MediaSource;
  let remover: MediaRemover | undefined;
  const { accountSid, authToken, apiBaseUrl, apiKey, timeoutMs } = config.twilio;
  if (config.twilio.transport === 'twilio' && accountSid && authToken) {
    const credentials: TwilioMediaSource = {
      apiBaseUrl: apiBaseUrl ?? TWILIO_API,
      username: apiKey?.sid ?? accountSid,
      password: apiKey?.secret ?? authToken,
    };
    source = new TwilioMediaFetcher(credentials, limits, options.outbound, log);
    if (config.media.deleteFromTwilio) remover = new TwilioMediaDeleter({ accountSid, authToken, apiBaseUrl, apiKey, timeoutMs }, log);
  } else if (options.dev) {
    const dev = options.dev;
    // Built on first use: the origin is known only once the server listens (PORT may be 0).
    let fetcher: TwilioMediaFetcher | undefined;
    let deleter: TwilioMediaDeleter | undefined;
    const base = () => `${dev.origin()}${DEV_TWILIO_PREFIX}`;
    source = { fetch: (url, signal) => (fetcher ??= new TwilioMediaFetcher({ apiBaseUrl: base(), username: DEV_ACCOUNT_SID, password: dev.store.secret }, limits, options.outbound, log)).fetch(url, signal) };
    if (config.media.deleteFromTwilio) {
      remover = { delete: (url) => (deleter ??= new TwilioMediaDeleter({ accountSid: DEV_ACCOUNT_SID, authToken: dev.store.secret, apiBaseUrl: base(), timeoutMs }, log)).delete(url) };
    }
  } else {
    // No Twilio and no dev phone: nothing can be downloaded; every attachment is told as such.
    source = { fetch: () => Promise.resolve({ ok: false, problem: 'refused_host', detail: 'Twilio is not configured' }) };
  }
  const transcription = config.media.transcription;
  const turnMedia = new TurnMedia({
    prisma: options.prisma,
    source,
    remover,
    cards: options.cards,
    transcriber: transcription ? new Transcriber(transcription) : undefined,
    settings: {
      maxBytes: config.media.maxBytes,
      voiceMaxSeconds: config.media.voiceMaxSeconds,
      ffmpegPath: config.media.ffmpegPath,
      transcriptionPricePerMinute: transcription?.pricePerMinuteUsd ?? 0,
    },
    clock: options.clock,
    logger: log,
  });
  if (!transcription) log.info('TRANSCRIPTION_BASE_URL is not set: voice notes get a polite reply instead of a transcript');
  return { turnMedia, timezoneTool: timezoneTool(options.users) };
}

/** The held action: set the user's time zone to the one their pin was in. */
function timezoneTool(users: UserService): ToolDefinition {
  return defineTool({
    name: TIMEZONE_FROM_PIN_ACTION.tool,
    description: "Sets the user's time zone to the one found at a location they shared (after their YES).",
    inputSchema: z.object({ timezone: z.string().refine(isValidTimezone, 'must be an IANA time zone') }),
    mutates: true,
    run: async (input, context) => {
      if (!context.confirmed) return toolError("changing the time zone from a pin needs the user's YES");
      const profile = await users.updateProfile(context.userId, { timezone: input.timezone });
      return ok({ effect: 'updated', timezone: profile.timezone });
    },
  });
}
