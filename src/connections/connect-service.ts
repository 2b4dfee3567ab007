import type { Logger } from '../logging/logger.js';
import { postedField as field, submittedValues, validationMessages } from '../pages/form-definition.js';
import { CONTROL_FIELDS, type FormState } from '../pages/form-renderer.js';
import type { RenderedDocument } from '../pages/page-document.js';
import { renderNotice, renderPage } from '../pages/page-renderer.js';
import { storedPageSchema } from '../pages/page-spec.js';
import { sameSecret } from '../pages/page-token.js';
import type { ConnectLinkRecord, ConnectLinks, LinkLookup } from './connect-links.js';
import type { ConnectMethod } from './connect-method.js';

/** What an HTTP request to a connect page gets. */
export type ConnectResponse = { kind: 'document'; status: number; document: RenderedDocument } | { kind: 'redirect'; url: string };

const invalidDocument = renderNotice('Link not valid', 'This link is not valid. Ask Herald for a new one: text "connect my calendar" or "connect my email".');
const expiredDocument = renderNotice('This link has expired', 'Connect links work for a short time only, to keep your accounts safe. Ask Herald for a fresh one: text "connect my calendar" or "connect my email".');
const usedDocument = renderNotice('This link was already used', 'Each connect link works once. If you still want to connect an account, ask Herald for a new link.');
const STALE_NOTICE = 'This form was already sent, or changed since it was opened. Here it is again; try once more.';

/**
 * The `/connect/<token>` pages and the OAuth callback. A link's purpose picks its
 * {@link ConnectMethod}; the page is built with Herald's page renderer (same look, same
 * CSP), its form carries the link's CSRF token and revision like every page form, and a
 * finished connection uses the link up. Expired, used and invalid links each get a page
 * that says so, and nothing else.
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
    return this.finish(current, method, outcome, values);
  }

  /** `GET /oauth/<provider>/callback?code&state` (or `?error=access_denied&state`). */
  async oauthCallback(query: Record<string, unknown>): Promise<ConnectResponse> {
    const state = typeof query.state === 'string' ? query.state : '';
    const found = await this.links.findByState(state);
    if (found.kind !== 'link') return refusal(found);
    const method = this.methods.get(found.link.purpose);
    if (!method?.completeOAuth) return document(404, invalidDocument);
    if (typeof query.code !== 'string' || query.code.length === 0) {
      this.logger.info({ linkId: found.link.id, error: typeof query.error === 'string' ? query.error : 'no code' }, 'OAuth consent not given');
      return document(200, this.render(found.link, method, { values: {}, formError: 'Nothing was connected: access was not granted. You can try again below.' }));
    }
    const outcome = await method.completeOAuth(found.link, query.code, found.verifier);
    this.logger.info({ linkId: found.link.id, userId: found.link.userId, purpose: found.link.purpose, outcome: outcome.kind }, 'OAuth callback handled');
    return this.finish(found.link, method, outcome, {});
  }

  private async finish(link: ConnectLinkRecord, method: ConnectMethod, outcome: Awaited<ReturnType<ConnectMethod['submit']>>, values: Record<string, string>): Promise<ConnectResponse> {
    if (outcome.kind === 'redirect') return outcome;
    if (outcome.kind === 'refused') return document(422, this.render(link, method, { values, fieldErrors: outcome.fieldErrors, formError: outcome.formError }));
    // Only one use wins: a second submission racing this one finds the link used.
    if (!(await this.links.consume(link.id))) return document(410, usedDocument);
    return document(200, renderNotice('Connected', outcome.message));
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
        { kind: 'text', markdown: method.intro },
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
