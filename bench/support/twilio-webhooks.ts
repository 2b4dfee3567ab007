import { createHmac, randomBytes } from 'node:crypto';
import twilio from 'twilio';

/** One inbound webhook, signed and encoded, ready to put on the wire. */
export interface SignedWebhook {
  messageSid: string;
  /** application/x-www-form-urlencoded body (a Buffer: flat, compact, sent as is). */
  body: Buffer;
  /** X-Twilio-Signature. */
  signature: string;
  /** I-Twilio-Idempotency-Token. */
  idempotencyToken: string;
}

/** The headers Twilio sends with a webhook. */
export function webhookHeaders(webhook: SignedWebhook): Record<string, string> {
  return {
    'Content-Type': 'application/x-www-form-urlencoded',
    'X-Twilio-Signature': webhook.signature,
    'I-Twilio-Idempotency-Token': webhook.idempotencyToken,
    'User-Agent': 'TwilioProxy/1.1',
  };
}

/** What every webhook of a run shares. */
export interface WebhookFactoryOptions {
  accountSid: string;
  authToken: string;
  /** The URL Twilio signs: PUBLIC_BASE_URL + path. */
  signedUrl: string;
  /** Distinct senders the messages come from (a real deployment serves many users). */
  users: number;
  /** Herald's numbers, as Twilio's `To`. */
  smsNumber: string;
  whatsappNumber: string;
  /** Seed for the (reproducible) choice of sender per message. */
  seed?: number;
}

const BODIES = [
  'Remind me to call mum at 6pm',
  'What is on my list for tomorrow?',
  'ok thanks!',
  'Can you move the dentist to Thursday morning please',
  'Add milk, eggs and coffee to the shopping list',
  'How long does it take to get to the airport from here at rush hour?',
  'yes',
  'Cancel the reminder about the car insurance, I already paid it',
];

/** The fields that differ between two messages of one sender: the sid (three times) and the text. */
const SID_FIELDS = new Set(['SmsMessageSid', 'SmsSid', 'MessageSid']);
const TEXT_FIELD = 'Body';
const SID = Symbol('sid');
const TEXT = Symbol('text');
type Template = Array<string | typeof SID | typeof TEXT>;

interface Sender {
  /** Every field of this sender's webhooks; the varying ones are empty. */
  params: Record<string, string>;
  /** The encoded body, constant runs pre-joined, with holes for the varying fields. */
  body: Template;
  /** What the signature's HMAC covers (URL, then name+value of every field, sorted by name), likewise. */
  signed: Template;
}

/** Joins constant runs; a hole is a varying field's value. */
function template(pieces: Array<string | typeof SID | typeof TEXT>): Template {
  const joined: Template = [];
  for (const piece of pieces) {
    const last = joined[joined.length - 1];
    if (typeof piece === 'string' && typeof last === 'string') joined[joined.length - 1] = last + piece;
    else joined.push(piece);
  }
  return joined;
}

function fill(parts: Template, sid: string, text: string, encode: boolean): string {
  let out = '';
  for (const part of parts) out += part === SID ? sid : part === TEXT ? (encode ? encodeURIComponent(text) : text) : part;
  return out;
}

/**
 * Makes distinct, validly signed inbound webhooks, exactly as Twilio posts them (the full
 * field set, so signature checking and form parsing cost what they cost in production).
 *
 * Senders: `users` numbers, a third of them writing over WhatsApp (UK mobiles), the rest
 * over SMS (US numbers); each message picks its sender pseudo-randomly (seeded), so
 * occasionally two messages of one user are in flight together, as in real traffic.
 * Every message has a unique MessageSid and a unique I-Twilio-Idempotency-Token.
 *
 * Signing follows Twilio's algorithm (HMAC-SHA1 over the URL and the sorted name+value
 * pairs) with the per-sender work done once; the first webhook is checked against the
 * twilio SDK's own getExpectedTwilioSignature so the two cannot drift apart.
 */
export class WebhookFactory {
  private readonly runId = randomBytes(4).toString('hex');
  private counter = 0;
  private state: number;
  private readonly senders: Sender[];
  private checked = false;

  constructor(private readonly options: WebhookFactoryOptions) {
    this.state = (options.seed ?? 0x2545f491) >>> 0 || 1;
    this.senders = Array.from({ length: options.users }, (_, index) => {
      const whatsapp = index % 3 === 0;
      const from = whatsapp ? `whatsapp:+4479${String(10_000_000 + index).padStart(8, '0')}` : `+1415${String(5_550_000 + index).padStart(7, '0')}`;
      const params: Record<string, string> = {
        ToCountry: 'US',
        ToState: 'CA',
        SmsMessageSid: '',
        NumMedia: '0',
        ToCity: 'SAN FRANCISCO',
        FromZip: whatsapp ? '' : '94105',
        SmsSid: '',
        FromState: whatsapp ? '' : 'CA',
        SmsStatus: 'received',
        FromCity: whatsapp ? '' : 'SAN FRANCISCO',
        Body: '',
        FromCountry: whatsapp ? 'GB' : 'US',
        To: whatsapp ? options.whatsappNumber : options.smsNumber,
        ToZip: '94105',
        NumSegments: '1',
        MessageSid: '',
        AccountSid: options.accountSid,
        From: from,
        ApiVersion: '2010-04-01',
        ...(whatsapp ? { ProfileName: `User ${index}`, WaId: from.slice('whatsapp:+'.length), MessageType: 'text' } : {}),
      };
      const hole = (key: string): typeof SID | typeof TEXT | undefined => (SID_FIELDS.has(key) ? SID : key === TEXT_FIELD ? TEXT : undefined);
      const body = template(
        Object.keys(params).flatMap((key, position): Template => [`${position > 0 ? '&' : ''}${key}=`, hole(key) ?? encodeURIComponent(params[key]!)]),
      );
      const signed = template([
        options.signedUrl,
        ...Object.keys(params)
          .sort()
          .flatMap((key): Template => [key, hole(key) ?? params[key]!]),
      ]);
      return { params, body, signed };
    });
  }

  /** The next webhook: a new MessageSid from a pseudo-randomly chosen sender. */
  next(): SignedWebhook {
    this.counter += 1;
    const sender = this.senders[this.random() % this.senders.length]!;
    const messageSid = `SM${this.runId}${this.counter.toString(16).padStart(24, '0')}`;
    const text = BODIES[this.counter % BODIES.length]!;
    const signature = createHmac('sha1', this.options.authToken).update(fill(sender.signed, messageSid, text, false), 'utf8').digest('base64');
    const body = Buffer.from(fill(sender.body, messageSid, text, true), 'utf8');

    if (!this.checked) {
      this.checked = true;
      const params = { ...sender.params, SmsMessageSid: messageSid, SmsSid: messageSid, MessageSid: messageSid, Body: text };
      const sdkSignature = twilio.getExpectedTwilioSignature(this.options.authToken, this.options.signedUrl, params);
      const decoded = Object.fromEntries(new URLSearchParams(body.toString()));
      if (sdkSignature !== signature || JSON.stringify(decoded) !== JSON.stringify(params)) {
        throw new Error("the benchmark's webhook encoding or signing disagrees with the twilio SDK's");
      }
    }
    return { messageSid, body, signature, idempotencyToken: `${this.runId}-${this.counter}` };
  }

  /** xorshift32: reproducible, fast, good enough to spread messages over senders. */
  private random(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
}

/**
 * A queue of pre-signed webhooks, so that signing is never part of what is measured.
 * `fill(n)` signs ahead; `take()` hands them out, and only signs on the spot (counted in
 * `signedLate`) if a phase ran faster than was provisioned for.
 */
export class SignedWebhookPool {
  private readonly ready: SignedWebhook[] = [];
  private position = 0;
  signedLate = 0;

  constructor(private readonly factory: WebhookFactory) {}

  fill(count: number): void {
    const missing = count - (this.ready.length - this.position);
    for (let index = 0; index < missing; index += 1) this.ready.push(this.factory.next());
  }

  take(): SignedWebhook {
    if (this.position < this.ready.length) {
      const webhook = this.ready[this.position]!;
      this.ready[this.position] = undefined as unknown as SignedWebhook; // let it be collected
      this.position += 1;
      return webhook;
    }
    this.signedLate += 1;
    return this.factory.next();
  }

  /** Drops what was handed out (keeps memory flat across phases). */
  compact(): void {
    this.ready.splice(0, this.position);
    this.position = 0;
  }
}
