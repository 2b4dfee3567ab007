import { z } from 'zod';
import type { ConnectLinks } from '../connections/connect-links.js';
import { defineConnectMethod, type ConnectMethod } from '../connections/connect-method.js';
import type { GoogleAccounts } from '../connections/google-accounts.js';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../shared/errors.js';
import { GMAIL_READ_SCOPE, GMAIL_SCOPES, GMAIL_SEND_SCOPE } from './gmail-provider.js';

/** The link purpose for connecting Gmail with Google's consent. */
export const GOOGLE_EMAIL_PURPOSE = 'google-email';
/** The link purpose for the page that asks where the user's mail is (Google, or another mailbox). */
export const CHOOSE_EMAIL_PURPOSE = 'email';

/** What the Gmail connect pages need. */
export interface GmailConnectDependencies {
  links: ConnectLinks;
  google: GoogleAccounts;
  /** The purpose of the form for any other mailbox (IMAP/SMTP), when there is one. */
  otherMailboxPurpose?: string | undefined;
  logger: Logger;
}

/**
 * The connect pages for Gmail: `google-email` sends the user to Google's consent page asking
 * for Gmail's scopes only (reading, sending and changing labels; `include_granted_scopes`, so a Google account
 * already connected for the calendar keeps that and gains mail, on the same connection), and,
 * when another mailbox can be connected too, `email`: a page asking where the user's mail is,
 * which hands its link on to the chosen method.
 */
export function gmailConnectMethods(deps: GmailConnectDependencies): ConnectMethod[] {
  const { links, google, logger } = deps;
  const startConsent = async (link: { id: string; userId: string }) => {
    const { state, codeChallenge } = await links.beginOAuth(link.id);
    return { kind: 'redirect' as const, url: google.consentUrl(await google.scopesFor(link.userId, GMAIL_SCOPES), state, codeChallenge) };
  };
  const methods: ConnectMethod[] = [
    defineConnectMethod({
      purpose: GOOGLE_EMAIL_PURPOSE,
      title: 'Connect your Gmail',
      intro:
        'Google will ask you to let Herald **read** your mail, **send** mail as you and **file** it (archive, label, mark read, move to the trash). Herald reads and files mail only when you ask, never sends or trashes anything without your YES, cannot delete anything for good, and you can remove its access at any time in your Google account.',
      form: { title: 'Gmail', submitLabel: 'Continue to Google', schema: z.object({}), fields: [] },
      submit: async (link) => startConsent(link),
      completeOAuth: async (link, code, verifier) => {
        try {
          const connection = await google.connect(link.userId, code, verifier, await google.scopesFor(link.userId, GMAIL_SCOPES));
          if (!connection.scopes.includes(GMAIL_READ_SCOPE)) return { kind: 'refused', formError: 'Google did not give Herald access to your mail. Try again and allow reading your email.' };
          const sending = connection.scopes.includes(GMAIL_SEND_SCOPE)
            ? ''
            : ' Sending was not allowed, so Herald can read your mail but not send any; connect again and allow it if you want Herald to send.';
          logger.info({ linkId: link.id, userId: link.userId, connectionId: connection.id, canSend: sending === '' }, 'Gmail connected');
          return { kind: 'done', message: `Connected ${connection.label}. Herald can now look through your mail when you ask.${sending} You can close this page and text Herald.` };
        } catch (error) {
          logger.warn({ linkId: link.id, error: describeError(error) }, 'Gmail connection failed');
          return { kind: 'refused', formError: 'Google did not complete the connection. Please try again.' };
        }
      },
    }),
  ];
  const other = deps.otherMailboxPurpose;
  if (other) {
    methods.push(
      defineConnectMethod({
        purpose: CHOOSE_EMAIL_PURPOSE,
        title: 'Connect your email',
        intro: 'Where is your mail? With **Gmail** (or Google Workspace) you sign in with Google. Any **other mailbox** (Outlook, iCloud, Fastmail, Yahoo, a company server) connects with an app password.',
        form: {
          title: 'Your mailbox',
          submitLabel: 'Continue',
          schema: z.object({ service: z.enum(['google', 'other'], { error: 'Choose where your mail is.' }) }),
          fields: [
            {
              name: 'service',
              label: 'My mail is in',
              type: 'select',
              required: true,
              options: [
                { value: 'google', label: 'Gmail or Google Workspace (sign in with Google)' },
                { value: 'other', label: 'Another mailbox (app password)' },
              ],
            },
          ],
        },
        initialValues: { service: 'google' },
        submit: async (link, values) => {
          const purpose = values.service === 'google' ? GOOGLE_EMAIL_PURPOSE : other;
          if (!(await links.repurpose(link.id, purpose))) return { kind: 'refused', formError: 'This link was already used. Ask Herald for a new one.' };
          logger.info({ linkId: link.id, userId: link.userId, chosen: purpose }, 'email connect method chosen');
          // Google: straight on to its consent page. Another mailbox: the same link, now its form.
          return values.service === 'google' ? startConsent(link) : { kind: 'redirect', url: links.urlOf(link) };
        },
      }),
    );
  }
  return methods;
}
