import MailComposer from 'nodemailer/lib/mail-composer';

/** A mail for a test mailbox, composed as a real mail program would (nodemailer's MailComposer). */
export interface FixtureMail {
  from: string | { name: string; address: string };
  to: string | string[];
  cc?: string[];
  subject: string;
  text?: string;
  html?: string;
  date: Date;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  attachments?: Array<{ filename: string; contentType: string; content: Buffer }>;
  /** Extra headers (List-Unsubscribe…). */
  headers?: Record<string, string>;
  /** Charset for a non-UTF-8 text body. */
  textEncoding?: string;
}

/** The raw RFC 5322 bytes of a fixture mail. */
export async function rawMail(mail: FixtureMail): Promise<Buffer> {
  const composer = new MailComposer({
    from: mail.from,
    to: mail.to,
    cc: mail.cc,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    date: mail.date,
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    attachments: mail.attachments,
    headers: mail.headers,
  });
  return composer.compile().build();
}

/** A hand-written raw mail (for header and charset cases no composer would produce). */
export function handWritten(lines: string[], body: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body]);
}
