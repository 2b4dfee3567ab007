import type { z } from 'zod';
import type { FormLayout } from '../pages/form-definition.js';
import type { ConnectLinkRecord } from './connect-links.js';

/** What a connect page's form, or an OAuth callback, achieved. */
type ConnectOutcome =
  /** Connected: the link is used up and the page says this. */
  | { kind: 'done'; message: string }
  /** Off to the provider's consent page (OAuth). */
  | { kind: 'redirect'; url: string }
  /** Not connected: what to fix, shown on the form (the link stays usable). */
  | { kind: 'refused'; fieldErrors?: Record<string, string>; formError?: string };

/**
 * One way of connecting an account, named by a link's purpose ("caldav-calendar",
 * "google-calendar"; email adds its own). Its page is Herald's page renderer with an
 * intro and this form; the form is validated with `schema` (its messages are what the
 * user reads) before `submit` runs. OAuth methods redirect from `submit` and finish in
 * `completeOAuth`, with the code and the PKCE verifier kept for the link.
 */
export interface ConnectMethod<Schema extends z.ZodType<unknown, Record<string, string>> = z.ZodType<unknown, Record<string, string>>> {
  purpose: string;
  /** The page's title, e.g. "Connect your Google Calendar". */
  title: string;
  /** Markdown above the form: what connecting does, and what the user needs. */
  intro: string;
  form: FormLayout & { schema: Schema };
  /** Values the form opens with (a known server address). */
  initialValues?: Record<string, string>;
  submit(link: ConnectLinkRecord, values: z.output<Schema>): Promise<ConnectOutcome>;
  completeOAuth?(link: ConnectLinkRecord, code: string, verifier: string): Promise<ConnectOutcome>;
}

/** Declares a connect method with its values' type inferred from its form's schema. */
export function defineConnectMethod<Schema extends z.ZodType<unknown, Record<string, string>>>(method: ConnectMethod<Schema>): ConnectMethod<Schema> {
  return method;
}
