import { z } from 'zod';
import { defineConnectMethod, type ConnectMethod } from '../connections/connect-method.js';
import type { EmailService } from './email-service.js';

/** A mail service's servers, so people only type their address and app password. */
interface MailPreset {
  label: string;
  imapUrl: string;
  smtpUrl: string;
  /** The server files what is sent through SMTP in Sent itself (no APPEND then). */
  sentSavedByServer: boolean;
  /** Where to make an app password. */
  appPasswordHelp: string;
}

/** The big providers' IMAP/SMTP servers (their published settings). */
const MAIL_PRESETS: Record<string, MailPreset> = {
  gmail: { label: 'Gmail', imapUrl: 'imaps://imap.gmail.com:993', smtpUrl: 'smtps://smtp.gmail.com:465', sentSavedByServer: true, appPasswordHelp: 'myaccount.google.com → Security → App passwords (needs 2-Step Verification)' },
  outlook: { label: 'Outlook', imapUrl: 'imaps://outlook.office365.com:993', smtpUrl: 'smtp://smtp-mail.outlook.com:587', sentSavedByServer: true, appPasswordHelp: 'account.microsoft.com → Security → Advanced security options → App passwords' },
  icloud: { label: 'iCloud Mail', imapUrl: 'imaps://imap.mail.me.com:993', smtpUrl: 'smtp://smtp.mail.me.com:587', sentSavedByServer: false, appPasswordHelp: 'appleid.apple.com → Sign-In and Security → App-Specific Passwords' },
  fastmail: { label: 'Fastmail', imapUrl: 'imaps://imap.fastmail.com:993', smtpUrl: 'smtps://smtp.fastmail.com:465', sentSavedByServer: false, appPasswordHelp: 'Fastmail Settings → Privacy & Security → Connected apps & API tokens → App passwords' },
  yahoo: { label: 'Yahoo Mail', imapUrl: 'imaps://imap.mail.yahoo.com:993', smtpUrl: 'smtps://smtp.mail.yahoo.com:465', sentSavedByServer: false, appPasswordHelp: 'login.yahoo.com/account/security → Generate app password' },
};

const host = z
  .string()
  .trim()
  .max(253)
  .refine((value) => value === '' || /^[a-z0-9.-]+$/i.test(value) || /^\[[0-9a-f:.]+\]$/i.test(value), 'Enter a server name such as imap.example.com (no https://).');
const port = z
  .string()
  .trim()
  .refine((value) => value === '' || (/^\d{1,5}$/.test(value) && Number(value) > 0 && Number(value) < 65536), 'Enter a port number, such as 993.');

/** The IMAP connect form's values. */
const imapFormSchema = z
  .object({
    service: z.enum(['gmail', 'outlook', 'icloud', 'fastmail', 'yahoo', 'other'], { message: 'Choose your mail service.' }),
    address: z.string().trim().toLowerCase().email('Enter your email address.'),
    password: z.string().min(1, 'Enter the app password.').max(500),
    username: z.string().trim().max(320),
    imapHost: host,
    imapPort: port,
    smtpHost: host,
    smtpPort: port,
    security: z.enum(['tls', 'starttls'], { message: 'Choose how to connect.' }),
  })
  .superRefine((values, context) => {
    if (values.service !== 'other') return;
    if (!values.imapHost) context.addIssue({ code: 'custom', path: ['imapHost'], message: 'Enter the incoming (IMAP) server, such as imap.example.com.' });
    if (!values.smtpHost) context.addIssue({ code: 'custom', path: ['smtpHost'], message: 'Enter the outgoing (SMTP) server, such as smtp.example.com.' });
  });
type ImapFormValues = z.output<typeof imapFormSchema>;

/** The account the form describes: a preset's servers, or the ones typed in. */
function accountFromForm(values: ImapFormValues) {
  const preset = values.service === 'other' ? undefined : MAIL_PRESETS[values.service];
  const tls = values.security === 'tls';
  const imapUrl = preset?.imapUrl ?? `${tls ? 'imaps' : 'imap'}://${values.imapHost}:${values.imapPort || (tls ? 993 : 143)}`;
  const smtpUrl = preset?.smtpUrl ?? `${tls ? 'smtps' : 'smtp'}://${values.smtpHost}:${values.smtpPort || (tls ? 465 : 587)}`;
  return { imapUrl, smtpUrl, username: values.username || values.address, password: values.password, address: values.address, sentSavedByServer: preset?.sentSavedByServer ?? false, service: preset?.label };
}

/** The connect page for any mailbox over IMAP/SMTP, with presets for the big providers; checked by logging in before it is saved. */
export function emailConnectMethods(deps: { emails: EmailService }): ConnectMethod[] {
  const help = Object.values(MAIL_PRESETS)
    .map((preset) => `- **${preset.label}:** ${preset.appPasswordHelp}`)
    .join('\n');
  return [
    defineConnectMethod({
      purpose: 'imap-email',
      title: 'Connect your email',
      intro: `Herald reads and searches your mail, and sends only what you confirm by text. Use an **app password** (not your usual one) where your provider offers them:\n\n${help}\n\nHerald logs in to check the account before saving anything; the password is stored encrypted.`,
      initialValues: { service: 'gmail', security: 'tls' },
      form: {
        title: 'Your mailbox',
        submitLabel: 'Connect',
        schema: imapFormSchema,
        fields: [
          { name: 'service', label: 'Mail service', type: 'select', required: true, options: [...Object.entries(MAIL_PRESETS).map(([value, preset]) => ({ value, label: preset.label })), { value: 'other', label: 'Another provider (enter its servers below)' }] },
          { name: 'address', label: 'Email address', type: 'email', required: true, autocomplete: 'email', maxLength: 320 },
          { name: 'password', label: 'App password', type: 'password', required: true, autocomplete: 'current-password' },
          { name: 'username', label: 'Username', type: 'text', hint: 'Leave empty when it is your email address.', autocomplete: 'username', maxLength: 320 },
          { name: 'imapHost', label: 'Incoming (IMAP) server', type: 'text', hint: 'Only for another provider, e.g. imap.example.com' },
          { name: 'imapPort', label: 'IMAP port', type: 'number', hint: '993 with TLS, 143 with STARTTLS' },
          { name: 'smtpHost', label: 'Outgoing (SMTP) server', type: 'text', hint: 'e.g. smtp.example.com' },
          { name: 'smtpPort', label: 'SMTP port', type: 'number', hint: '465 with TLS, 587 with STARTTLS' },
          { name: 'security', label: 'Connection security', type: 'select', required: true, options: [{ value: 'tls', label: 'TLS (SSL)' }, { value: 'starttls', label: 'STARTTLS' }] },
        ],
      },
      submit: async (link, values) => {
        const connected = await deps.emails.connectImap(link.userId, accountFromForm(values));
        if (!connected.ok) {
          if (connected.field === 'form') return { kind: 'refused', formError: connected.error };
          const field = connected.field === 'imapUrl' ? 'imapHost' : connected.field === 'smtpUrl' ? 'smtpHost' : 'password';
          return values.service !== 'other' && field !== 'password' ? { kind: 'refused', formError: connected.error } : { kind: 'refused', fieldErrors: { [field]: connected.error } };
        }
        return { kind: 'done', message: `Connected ${connected.connection.label}. You can close this page and text Herald, for example "any new email?".` };
      },
    }),
  ];
}
