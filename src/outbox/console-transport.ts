import type { Logger } from '../logging/logger.js';
import type { IdGenerator } from '../shared/ids.js';
import type { MessageTransport, TransportMessage, TransportResult } from './message-transport.js';

/**
 * The transport for local use without Twilio credentials: each message is printed to the
 * terminal and recorded as sent, so the rest of Herald behaves exactly as in production.
 * The body goes to `print` (the console), never into the structured log.
 */
export class ConsoleTransport implements MessageTransport {
  readonly name = 'console' as const;

  constructor(
    private readonly logger: Logger,
    private readonly ids: IdGenerator,
    private readonly print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
  ) {}

  async send(message: TransportMessage): Promise<TransportResult> {
    const sid = `SM${this.ids.next().replaceAll('-', '').slice(0, 32).padEnd(32, '0')}`;
    this.logger.info({ to: message.to, sid, transport: 'console' }, 'outbound message recorded (console transport; not sent)');
    const text = message.body ?? `[WhatsApp template ${message.contentSid} ${JSON.stringify(message.contentVariables ?? {})}]`;
    this.print(`\n── Herald → ${message.to} ──\n${text}\n`);
    return { ok: true, sid, status: 'sent' };
  }
}
