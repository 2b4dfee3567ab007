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
 * Twilio's inbound message webhook (SMS, WhatsApp and RCS), as the form fields it posts.
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
  /**
   * WhatsApp and RCS: the payload of the quick-reply button or list item the user tapped
   * (Body and ButtonText carry its title). Malformed: dropped, the message kept as text.
   */
  ButtonPayload: z.string().min(1).max(256).optional().catch(undefined),
  ButtonText: z.string().max(256).optional().catch(undefined),
  /** Present when Twilio's Advanced Opt-Out recognised a keyword. */
  OptOutType: z.enum(['STOP', 'START', 'HELP']).optional(),
  /** A WhatsApp location pin. A malformed pin is dropped, never the message with it. */
  Latitude: z.coerce.number().min(-90).max(90).optional().catch(undefined),
  Longitude: z.coerce.number().min(-180).max(180).optional().catch(undefined),
  Address: z.string().max(500).optional().catch(undefined),
  Label: z.string().max(500).optional().catch(undefined),
}));

/** A parsed inbound webhook. */
export type InboundMessageWebhook = z.infer<typeof inboundMessageSchema>;

/** One attachment as the webhook names it: Twilio's media URL and the type Twilio declared. */
export interface WebhookAttachment {
  url: string;
  contentType: string;
}

const attachmentSchema = z.object({ url: z.string().min(1).max(2048), contentType: z.string().max(255).default('application/octet-stream') });

/**
 * The attachments of an inbound webhook: MediaUrlN and MediaContentTypeN for N below
 * NumMedia, in order. Twilio sends at most 10; an entry without a usable URL is skipped
 * (nothing to download), never the message.
 */
export function webhookAttachments(webhook: InboundMessageWebhook): WebhookAttachment[] {
  const attachments: WebhookAttachment[] = [];
  for (let index = 0; index < Math.min(webhook.NumMedia, 20); index += 1) {
    const parsed = attachmentSchema.safeParse({ url: webhook[`MediaUrl${index}`], contentType: webhook[`MediaContentType${index}`] || undefined });
    if (parsed.success) attachments.push(parsed.data);
  }
  return attachments;
}

/** A WhatsApp location pin. */
export interface LocationPin {
  latitude: number;
  longitude: number;
  address?: string | undefined;
  label?: string | undefined;
}

/** The webhook's location pin, when it carries both coordinates. */
export function webhookLocation(webhook: InboundMessageWebhook): LocationPin | undefined {
  if (webhook.Latitude === undefined || webhook.Longitude === undefined) return undefined;
  const address = webhook.Address?.trim();
  const label = webhook.Label?.trim();
  return { latitude: webhook.Latitude, longitude: webhook.Longitude, ...(address ? { address } : {}), ...(label ? { label } : {}) };
}

/** Twilio's message status callback for a message Herald sent. */
export const statusCallbackSchema = z.looseObject({
  MessageSid: z.string().regex(/^(SM|MM)[0-9a-zA-Z]{10,64}$/, 'is not a Twilio message sid'),
  MessageStatus: z.string().min(1).max(32),
  // Twilio sends an empty ErrorCode on success; treat it as absent, not as error 0.
  ErrorCode: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().optional()),
  ErrorMessage: z.string().max(1000).optional(),
  /**
   * The sender the message went out from: `rcs:<agent>` when a Messaging Service delivered it
   * over RCS, the phone number when Twilio fell back to SMS, `whatsapp:+…` on WhatsApp.
   */
  From: z.string().max(128).optional().catch(undefined),
  /** The channel Twilio names for the message when it names one ("rcs", "whatsapp"). */
  ChannelPrefix: z.string().max(32).optional().catch(undefined),
});

/**
 * The channel a status callback says a message really travelled on (an RCS message that
 * Twilio fell back to SMS reports its SMS number), or undefined when it does not say.
 */
export function deliveredChannel(callback: Pick<StatusCallbackWebhook, 'From' | 'ChannelPrefix'>): 'sms' | 'whatsapp' | 'rcs' | undefined {
  const prefix = callback.ChannelPrefix?.trim().toLowerCase();
  if (prefix === 'rcs' || prefix === 'whatsapp') return prefix;
  const from = callback.From?.trim().toLowerCase();
  if (!from) return prefix === 'sms' ? 'sms' : undefined;
  if (from.startsWith('rcs:')) return 'rcs';
  if (from.startsWith('whatsapp:')) return 'whatsapp';
  return /^\+?\d{3,15}$/.test(from) ? 'sms' : undefined;
}

/** A parsed status callback. */
export type StatusCallbackWebhook = z.infer<typeof statusCallbackSchema>;
