import { maskPhone } from '../channels/phone-number.js';
import type { Logger } from '../logging/logger.js';
import { postedField as field, submittedValues, validationMessages } from '../pages/form-definition.js';
import { CONTROL_FIELDS, type FormState } from '../pages/form-renderer.js';
import type { RenderedDocument } from '../pages/page-document.js';
import { renderNotice, renderPage } from '../pages/page-renderer.js';
import { storedPageSchema } from '../pages/page-spec.js';
import { sameSecret } from '../pages/page-token.js';
import type { ConnectLinkRecord, ConnectLinks, LinkLookup } from './connect-links.js';
import type { ConnectMethod } from './connect-method.js';

/** A cookie the response sets: HttpOnly, SameSite=Lax, scoped to `path` (the HTTP layer writes it). */
export interface ConnectCookie {
  name: string;
  value: string;
  path: string;
  /** 0 deletes it. */
  maxAgeSeconds: number;
}

/** What an HTTP request to a connect page gets. */
export type ConnectResponse = { kind: 'document'; status: number; document: RenderedDocument; cookies?: ConnectCookie[] } | { kind: 'redirect'; url: string; cookies?: ConnectCookie[] };

/** Where the browser's consent cookie is sent back: the OAuth callbacks only. */
const CONSENT_COOKIE_PATH = '/oauth/';
/** Longer than any consent takes; the link's own expiry and single use still decide. */
const CONSENT_COOKIE_SECONDS = 60 * 60;

const invalidDocument = renderNotice('Link not valid', 'This link is not valid. Ask Herald for a new one: text "connect my calendar" or "connect my email".');
const expiredDocument = renderNotice('This link has expired', 'Connect links work for a short time only, to keep your accounts safe. Ask Herald for a fresh one: text "connect my calendar" or "connect my email".');
const usedDocument = renderNotice('This link was already used', 'Each connect link works once. If you still want to connect an account, ask Herald for a new link.');
const STALE_NOTICE = 'This form was already sent, or changed since it was opened. Here it is again; try once more.';
const otherBrowserDocument = renderNotice(
  'Nothing was connected',
  'This sign-in came back to a different browser from the one that opened the connect link, so Herald connected nothing. An account is only connected in the browser where its link was opened: open the link from Herald’s text on your own phone or computer and try again.',
);

/**
 * The `/connect/<token>` pages and the OAuth callback. A link's purpose picks its
 * {@link ConnectMethod}; the page is built with Herald's page renderer (same look, same
 * CSP), its form carries the link's CSRF token and revision like every page form, and a
 * finished connection uses the link up. Expired, used and invalid links each get a page
 * that says so, and nothing else. Every page says, masked, whose Herald it connects to.
 *
 * Consent (OAuth) is bound to the browser that posted the form: leaving for the provider
 * sets an HttpOnly, SameSite=Lax cookie (path /oauth/) holding a nonce whose hash the link
 * keeps, and the callback connects only when it comes back with it. A consent URL sent to
 * someone else therefore cannot attach their account to this Herald.
 */
export class ConnectService {
  private readonly methods = new Map<string, ConnectMethod>();

  constructor(
    private readonly links: ConnectLinks,
    methods: ConnectMethod[],
    private readonly logger: Logger,
  ) {
    for (const method of methods) this.methods.set(method.purpose, method);
  }

  /** Adds connect methods (a module wired after this service: email beside the calendar). */
  add(methods: ConnectMethod[]): void {
    for (const method of methods) this.methods.set(method.purpose, method);
  }

  /** True when links can be issued for `purpose`. */
  supports(purpose: string): boolean {
    return this.methods.has(purpose);
  }

  /** `GET /connect/<token>`. */
  async open(token: string): Promise<ConnectResponse> {
    const found = await this.find(await this.links.resolve(token));
    if ('response' in found) return found.response;
    return document(200, this.render(found.link, found.method, { values: { ...found.method.initialValues } }));
  }

  /** `POST /connect/<token>`: the form. */
  async submit(token: string, body: Record<string, unknown>): Promise<ConnectResponse> {
    const found = await this.find(await this.links.resolve(token));
    if ('response' in found) return found.response;
    const { link, method } = found;
    const csrf = field(body, CONTROL_FIELDS.csrf);
    if (!csrf || !sameSecret(csrf, link.csrfToken)) {
      this.logger.warn({ linkId: link.id }, 'connect form refused: wrong CSRF token');
      return document(403, renderNotice('Not accepted', 'This form could not be accepted. Open the link from Herald’s message again and try once more.'));
    }
    const values = submittedValues(method.form, body);
    const parsed = method.form.schema.safeParse(values);
    if (!parsed.success) return document(422, this.render(link, method, { values, ...validationMessages(parsed.error, method.form) }));
    const revision = Number(/^\d{1,9}$/.test(field(body, CONTROL_FIELDS.revision) ?? '') ? field(body, CONTROL_FIELDS.revision) : -1);
    if (!(await this.links.advanceRevision(link.id, revision))) {
      return document(409, this.render({ ...link, revision: link.revision + 1 }, method, { values: {} }, STALE_NOTICE));
    }
    const current = { ...link, revision: link.revision + 1 };
    const outcome = await method.submit(current, parsed.data);
    this.logger.info({ linkId: link.id, userId: link.userId, purpose: link.purpose, outcome: outcome.kind }, 'connect form submitted');
    if (outcome.kind === 'redirect') {
      // Off to a provider (or on to another connect page): the way back must be this browser.
      const nonce = await this.links.bindBrowser(link.id);
      return { ...outcome, cookies: [this.consentCookie(link, nonce)] };
    }
    return this.finish(current, method, outcome, values);
  }

  /**
   * `GET /oauth/<provider>/callback?code&state` (or `?error=access_denied&state`), with the
   * request's cookies: without the browser's consent cookie nothing is connected, the code
   * is never exchanged, and the consent under way is ended (the link stays usable).
   */
  async oauthCallback(query: Record<string, unknown>, cookies: Record<string, string> = {}): Promise<ConnectResponse> {
    const state = typeof query.state === 'string' ? query.state : '';
    const found = await this.links.findByState(state);
    if (found.kind !== 'link') return refusal(found);
    const method = this.methods.get(found.link.purpose);
    if (!method?.completeOAuth) return document(404, invalidDocument);
    const cookie = this.consentCookie(found.link, '');
    if (!this.links.browserMatches(found.browserHash, cookies[cookie.name])) {
      await this.links.abandonOAuth(found.link.id);
      this.logger.warn({ linkId: found.link.id, userId: found.link.userId, cookie: cookies[cookie.name] === undefined ? 'absent' : 'wrong' }, 'OAuth callback refused: not the browser that started consent');
      return document(403, otherBrowserDocument);
    }
    const response = await this.completeOAuth(found.link, method, query, found.verifier);
    return { ...response, cookies: [{ ...cookie, maxAgeSeconds: 0 }] };
  }

  private async completeOAuth(link: ConnectLinkRecord, method: ConnectMethod, query: Record<string, unknown>, verifier: string): Promise<ConnectResponse> {
    if (typeof query.code !== 'string' || query.code.length === 0) {
      this.logger.info({ linkId: link.id, error: typeof query.error === 'string' ? query.error : 'no code' }, 'OAuth consent not given');
      return document(200, this.render(link, method, { values: {}, formError: 'Nothing was connected: access was not granted. You can try again below.' }));
    }
    const outcome = await method.completeOAuth!(link, query.code, verifier);
    this.logger.info({ linkId: link.id, userId: link.userId, purpose: link.purpose, outcome: outcome.kind }, 'OAuth callback handled');
    return this.finish(link, method, outcome, {});
  }

  /** The link's consent cookie, named for the link (several consents in one browser do not clash). */
  private consentCookie(link: ConnectLinkRecord, value: string): ConnectCookie {
    return { name: `herald_consent_${link.id.replace(/-/g, '')}`, value, path: CONSENT_COOKIE_PATH, maxAgeSeconds: CONSENT_COOKIE_SECONDS };
  }

  private async finish(link: ConnectLinkRecord, method: ConnectMethod, outcome: Awaited<ReturnType<ConnectMethod['submit']>>, values: Record<string, string>): Promise<ConnectResponse> {
    if (outcome.kind === 'redirect') return outcome;
    if (outcome.kind === 'refused') return document(422, this.render(link, method, { values, fieldErrors: outcome.fieldErrors, formError: outcome.formError }));
    // Only one use wins: a second submission racing this one finds the link used.
    if (!(await this.links.consume(link.id))) return document(410, usedDocument);
    return document(200, renderNotice('Connected', `${outcome.message} It works for the Herald you text from ${maskPhone(link.phone)}.`));
  }

  private async find(lookup: LinkLookup): Promise<{ link: ConnectLinkRecord; method: ConnectMethod } | { response: ConnectResponse }> {
    if (lookup.kind !== 'link') return { response: refusal(lookup) };
    const method = this.methods.get(lookup.link.purpose);
    return method ? { link: lookup.link, method } : { response: document(404, invalidDocument) };
  }

  private render(link: ConnectLinkRecord, method: ConnectMethod, state: FormState, notice?: string): RenderedDocument {
    const page = storedPageSchema.parse({
      title: method.title,
      timezone: link.timezone,
      sections: [
        // Whose Herald this is: a link forwarded to someone else says so on its face.
        { kind: 'text', markdown: `This connects an account to the Herald you text from **${maskPhone(link.phone)}**.\n\n${method.intro}` },
        { kind: 'form', form: method.purpose },
      ],
    });
    return renderPage({
      page,
      expiresAt: link.expiresAt,
      controls: { csrfToken: link.csrfToken, revision: link.revision },
      checklists: new Map(),
      forms: new Map([[1, { definition: method.form, state }]]),
      notice,
    });
  }
}

/** The page for a link that cannot be used: expired, used, or not a link at all. */
function refusal(lookup: Exclude<LinkLookup, { kind: 'link' }>): ConnectResponse {
  if (lookup.kind === 'expired') return document(410, expiredDocument);
  if (lookup.kind === 'used') return document(410, usedDocument);
  return document(404, invalidDocument);
}

function document(status: number, rendered: RenderedDocument): ConnectResponse {
  return { kind: 'document', status, document: rendered };
}
