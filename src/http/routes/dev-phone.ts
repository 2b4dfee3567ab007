import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseTwilioAddress } from '../../channels/phone-number.js';
import { renderDevPhone } from '../../dev/dev-phone-page.js';
import { devInboundWebhook, INBOUND_WEBHOOK_PATH } from '../../dev/dev-webhook.js';
import type { FedMessage } from '../../dev/outbound-feed.js';
import { isFromThisMachine, type SignatureOptions } from '../twilio-signature.js';
import { twimlMessageText } from '../twiml.js';
import { sendDocument } from './pages.js';

/** What the dev phone needs (only given in local mode: Twilio not configured). */
export interface DevPhoneRouteOptions {
  feed: { subscribe(phone: string, listener: (message: FedMessage) => void): () => void; publish(message: FedMessage): void };
  /** How the injected webhooks are signed (as Twilio would, when an auth token is set). */
  signature: SignatureOptions;
  /** The number messages are addressed to (Herald's). */
  heraldNumber: string;
  /** Seconds between keep-alive comments on an idle event stream. */
  heartbeatSeconds?: number;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const phoneSchema = z
  .string()
  .trim()
  .transform((value, context) => {
    const address = parseTwilioAddress(value);
    if (!address || address.channel !== 'sms') {
      context.addIssue({ code: 'custom', message: 'must be a phone number in international form, such as +14155550123' });
      return z.NEVER;
    }
    return address.phone;
  });
const messageSchema = z.object({ from: phoneSchema, body: z.string().trim().min(1, 'must not be empty').max(1600) });

/**
 * `/dev/phone`: try Herald in a browser without Twilio. Registered only when Twilio is not
 * configured, and answering only this machine (a loopback client naming a local host, not
 * relayed by a proxy); anything else gets the same 404 as an unknown path. Messages go
 * through the real webhook route; replies come back as server-sent events.
 */
export async function devPhoneRoute(app: FastifyInstance, options: DevPhoneRouteOptions): Promise<void> {
  const streams = new Set<() => void>();
  // Open event streams would keep the server from closing.
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!isThisMachine(request)) return reply.callNotFound();
  });

  app.get('/dev/phone', async (_request, reply) => sendDocument(reply, 200, renderDevPhone()));

  app.post('/dev/phone/messages', async (request, reply) => {
    // JSON only (a cross-site form cannot send it without a preflight we never grant), and
    // a browser's Origin, when sent, must be this very host.
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return reply.code(415).type('text/plain').send('Send JSON: {"from": "+1…", "body": "…"}');
    const origin = request.headers.origin;
    if (origin && safeHost(origin) !== request.headers.host) return reply.code(403).type('text/plain').send('Forbidden');
    const parsed = messageSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).type('text/plain').send(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    const webhook = devInboundWebhook({ from: parsed.data.from, to: options.heraldNumber, body: parsed.data.body }, options.signature);
    const response = await app.inject({ method: 'POST', url: INBOUND_WEBHOOK_PATH, headers: webhook.headers, payload: webhook.payload, remoteAddress: '127.0.0.1' });
    if (response.statusCode !== 200) return reply.code(response.statusCode).type('text/plain').send(response.body);
    // A sender Herald does not serve is answered in the webhook's TwiML (src/access): Twilio
    // would text that back, so the dev phone shows it too.
    const answered = twimlMessageText(response.body);
    const sender = parseTwilioAddress(parsed.data.from);
    if (answered !== undefined && sender) options.feed.publish({ to: sender.phone, channel: sender.channel, body: answered, at: new Date().toISOString() });
    return reply.code(202).send({ accepted: true });
  });

  app.get<{ Querystring: { from?: string } }>('/dev/phone/events', async (request, reply) => {
    const phone = phoneSchema.safeParse(request.query.from ?? '');
    if (!phone.success) return reply.code(400).type('text/plain').send('from: must be a phone number in international form, such as +14155550123');
    openEventStream(request, reply, phone.data, options, streams);
  });
}

/** Server-sent events for one number: `ready` once listening, then a `message` per text Herald sends it. */
function openEventStream(request: FastifyRequest, reply: FastifyReply, phone: string, options: DevPhoneRouteOptions, streams: Set<() => void>): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const unsubscribe = options.feed.subscribe(phone, (message) => raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
  raw.write(`event: ready\ndata: ${JSON.stringify({ phone })}\n\n`);
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), (options.heartbeatSeconds ?? 15) * 1000);
  heartbeat.unref();
  const end = () => {
    clearInterval(heartbeat);
    unsubscribe();
    streams.delete(end);
    if (!raw.writableEnded) raw.end();
  };
  streams.add(end);
  request.raw.on('close', end);
  request.log.info('dev phone listening');
}

/** A request from this machine to this machine: not relayed, not reached through another host name. */
function isThisMachine(request: FastifyRequest): boolean {
  if (!isFromThisMachine(request)) return false;
  const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  return LOCAL_HOSTS.has(host);
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}
