import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import type { DovecotServer } from './dovecot-server.js';

/** One mail the receiver accepted: its envelope and raw bytes. */
export interface ReceivedMail {
  from: string;
  recipients: string[];
  raw: string;
  /** The SMTP user that sent it. */
  user: string;
}

/**
 * An SMTP server for the tests (the `smtp-server` package), as strict as a real submission
 * server: it requires a login (the same users and passwords as the Dovecot server), refuses
 * the recipients a test names with 550, and delivers what it accepts into each local
 * recipient's Dovecot INBOX (IMAP APPEND), so a test reads the mail where a person would.
 * Mail to addresses with no local mailbox is kept in {@link received} only.
 */
export class SmtpReceiver {
  readonly received: ReceivedMail[] = [];
  private readonly refused = new Set<string>();

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  /** `smtp://127.0.0.1:<port>`: the URL a connection's settings name. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  static async start(dovecot: DovecotServer): Promise<SmtpReceiver> {
    let receiver: SmtpReceiver | undefined;
    const byAddress = new Map(Object.entries(dovecot.users).map(([name, user]) => [user.address.toLowerCase(), name]));
    const server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      size: 30 * 1024 * 1024,
      logger: false,
      onAuth(auth, _session, callback) {
        const user = dovecot.users[auth.username ?? ''];
        if (!user || user.password !== auth.password) return callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
        callback(null, { user: auth.username });
      },
      onMailFrom(_address, session, callback) {
        if (!session.user) return callback(Object.assign(new Error('5.7.0 Authentication required'), { responseCode: 530 }));
        callback();
      },
      onRcptTo(address: SMTPServerAddress, _session, callback) {
        if (receiver?.refused.has(address.address.toLowerCase())) {
          return callback(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address);
          receiver!.received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', recipients, raw: raw.toString('utf8'), user: String(session.user) });
          const local = recipients.map((address) => byAddress.get(address.toLowerCase())).filter((name): name is string => name !== undefined);
          Promise.all(local.map((name) => dovecot.deliver(name, { raw }))).then(
            () => callback(),
            (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
          );
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    receiver = new SmtpReceiver(server, (server.server.address() as AddressInfo).port);
    return receiver;
  }

  /** RCPT TO these addresses is answered 550 until {@link acceptAll}. */
  refuse(...addresses: string[]): void {
    for (const address of addresses) this.refused.add(address.toLowerCase());
  }

  acceptAll(): void {
    this.refused.clear();
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
