import { z } from 'zod';

/**
 * Removes NUL characters from every string field. Postgres text cannot hold U+0000, so a
 * Body carrying one (a phone or a script can send it) would fail to store and lose the
 * message; nothing a person wrote is lost by dropping it.
 */
function withoutNulCharacters(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, typeof field === 'string' ? field.replaceAll('\u0000', '') : field]));
}

/**
 * Twilio's inbound message webhook (SMS and WhatsApp), as the form fields it posts.
 * Only what Herald reads is declared; Twilio adds fields over time, so unknown ones are
 * accepted and ignored (a loose object).
 */
export const inboundMessageSchema = z.preprocess(withoutNulCharacters, z.looseObject({
  MessageSid: z.string().regex(/^(SM|MM|SMS)[0-9a-zA-Z]{10,64}$/, 'is not a Twilio message sid'),
  AccountSid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'is not a Twilio account sid'),
  From: z.string().min(1).max(64),
  To: z.string().min(1).max(64),
  Body: z.string().max(10_000).default(''),
  NumMedia: z.coerce.number().int().min(0).max(20).default(0),
  /** WhatsApp display name. */
  ProfileName: z.string().max(256).optional(),
  /** WhatsApp: the sid of the message this one replies to (quotes), when it quotes one. */
  OriginalRepliedMessageSid: z.string().regex(/^(SM|MM)[0-9a-zA-Z]{10,64}$/).optional().catch(undefined),
  /** Present when Twilio's Advanced Opt-Out recognised a keyword. */
  OptOutType: z.enum(['STOP', 'START', 'HELP']).optional(),
}));

/** A parsed inbound webhook. */
export type InboundMessageWebhook = z.infer<typeof inboundMessageSchema>;

/** Twilio's message status callback for a message Herald sent. */
export const statusCallbackSchema = z.looseObject({
  MessageSid: z.string().regex(/^(SM|MM)[0-9a-zA-Z]{10,64}$/, 'is not a Twilio message sid'),
  MessageStatus: z.string().min(1).max(32),
  // Twilio sends an empty ErrorCode on success; treat it as absent, not as error 0.
  ErrorCode: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().optional()),
  ErrorMessage: z.string().max(1000).optional(),
});

/** A parsed status callback. */
export type StatusCallbackWebhook = z.infer<typeof statusCallbackSchema>;
