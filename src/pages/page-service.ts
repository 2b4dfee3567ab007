import type { ListService } from '../lists/list-service.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { postedField as field, submittedValues, validationMessages, type FormRegistry } from './form-definition.js';
import { CONTROL_FIELDS, type FormState } from './form-renderer.js';
import type { ChecklistItems } from './checklist-renderer.js';
import { capPage } from './page-limits.js';
import type { RenderedDocument } from './page-document.js';
import { expiredDocument, notFoundDocument, renderNotice, renderPage } from './page-renderer.js';
import { storedPageSchema, type PageInput, type StoredPage, type StoredSection } from './page-spec.js';
import type { PageRecord, PageStore } from './page-store.js';
import { hashToken, isTokenShaped, newToken, sameSecret } from './page-token.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/** An expected failure, worded for the model. */
export type PageResult<Value> = { ok: true; value: Value } | { ok: false; error: string };

/** What an HTTP request for a page gets: a document with its status, or a redirect. */
export type PageResponse =
  | { kind: 'document'; status: number; document: RenderedDocument }
  /** Back to the page itself (after a tick), at this fragment. */
  | { kind: 'redirect'; fragment: string };

/** Settings. */
export interface PageServiceOptions {
  /** How long a link works (PAGE_TTL_HOURS). */
  ttlHours: number;
  /** Links are this origin + /p/<token>. */
  publicBaseUrl: string;
}

/** An expired page says so for this long, then is forgotten. */
const EXPIRED_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

const STALE_NOTICE = 'This page changed since it was opened, so that was not saved. Here it is as it is now; try again.';

/**
 * Pages: made by ui-agent (`render_page`), opened and used through `/p/<token>`, deleted
 * on request. Everything a page does goes through the same services as the agents' tools
 * (a tick is ListService's, a form's submit its own service's), always as the page's
 * owner: a token leads to one page of one user and nothing else.
 */
export class PageService {
  constructor(
    private readonly store: PageStore,
    private readonly lists: ListService,
    readonly forms: FormRegistry,
    private readonly clock: Clock,
    private readonly options: PageServiceOptions,
    private readonly logger: Logger,
  ) {}

  /** Stores a page for the user and returns its link (the token is in it, and nowhere else). */
  async create(userId: string, timezone: string, input: PageInput): Promise<PageResult<{ effect: 'created'; link: string; title: string; expiresAt: string; notes: string[] }>> {
    const { page, notes } = capPage(input);
    const sections: StoredSection[] = [];
    for (const section of page.sections) {
      if (section.kind === 'checklist') {
        const list = await this.lists.findList(userId, section.list);
        if (!list.ok) return { ok: false, error: `${list.error} No page was made.` };
        sections.push({ ...section, list: list.value.name, listId: list.value.id });
      } else if (section.kind === 'form') {
        if (!this.forms.get(section.form)) return { ok: false, error: `There is no "${section.form}" form. No page was made.` };
        sections.push(section);
      } else {
        sections.push(section);
      }
    }
    // A bug, not bad input, if this fails: capping and binding produce a valid stored page.
    const spec: StoredPage = storedPageSchema.parse({ title: page.title, language: page.language, timezone, notes, sections });
    const token = newToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.options.ttlHours * 3_600_000);
    const { id } = await this.store.create({ userId, tokenHash: hashToken(token), spec, csrfToken: newToken(), createdAt: now, expiresAt });
    await this.store.deleteExpired(userId, new Date(now.getTime() - EXPIRED_KEPT_MS));
    this.logger.info({ pageId: id, userId, sections: spec.sections.length, cut: notes.length }, 'page created');
    return { ok: true, value: { effect: 'created', link: `${withoutTrailingSlashes(this.options.publicBaseUrl)}/p/${token}`, title: spec.title, expiresAt: expiresAt.toISOString(), notes } };
  }

  /** Deletes the user's page whose title contains `title` (newest first), else their newest; or all of them. */
  async remove(userId: string, which: { title?: string | undefined; all?: boolean | undefined }): Promise<PageResult<{ effects: { created: 0; updated: 0; deleted: number }; deleted: string[] }>> {
    const pages = await this.store.listForUser(userId);
    if (pages.length === 0) return { ok: false, error: 'The user has no pages. Nothing was deleted.' };
    let chosen = pages;
    if (!which.all) {
      const wanted = which.title?.trim().toLowerCase();
      const match = wanted ? pages.find((page) => page.title.toLowerCase().includes(wanted)) : pages[0];
      if (!match) return { ok: false, error: `No page is titled like "${which.title}". Pages: ${pages.slice(0, 10).map((page) => page.title).join('; ')}. Nothing was deleted.` };
      chosen = [match];
    }
    const deleted = await this.store.delete(userId, chosen.map((page) => page.id));
    this.logger.info({ userId, deleted }, 'pages deleted');
    return { ok: true, value: { effects: { created: 0, updated: 0, deleted }, deleted: chosen.map((page) => page.title) } };
  }

  /** `GET /p/<token>`. */
  async open(token: string): Promise<PageResponse> {
    const found = await this.find(token);
    if (found.kind !== 'page') return found.response;
    return { kind: 'document', status: 200, document: await this.render(found.page) };
  }

  /** `POST /p/<token>`: a checklist tick (`_toggle`) or a form (`_section`). */
  async submit(token: string, body: Record<string, unknown>): Promise<PageResponse> {
    const found = await this.find(token);
    if (found.kind !== 'page') return found.response;
    const { page } = found;
    const csrf = field(body, CONTROL_FIELDS.csrf);
    if (!csrf || !sameSecret(csrf, page.csrfToken)) {
      this.logger.warn({ pageId: page.id }, 'page form refused: wrong CSRF token');
      return document(403, renderNotice('Not accepted', 'This form could not be accepted. Open the page again from Herald’s message and try once more.'));
    }
    // Not a revision at all counts as stale: it can never match the page's.
    const revision = /^\d{1,9}$/.test(field(body, CONTROL_FIELDS.revision) ?? '') ? Number(field(body, CONTROL_FIELDS.revision)) : -1;
    const toggle = field(body, CONTROL_FIELDS.toggle);
    const section = field(body, CONTROL_FIELDS.section);
    if (toggle !== undefined) return this.tick(page, revision, toggle);
    if (section !== undefined) return this.submitForm(page, revision, Number(section), body);
    return document(400, renderNotice('Not understood', 'That request was not understood. Open the page again and try once more.'));
  }

  private async tick(page: PageRecord, revision: number, toggle: string): Promise<PageResponse> {
    const parsed = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):([01])$/i.exec(toggle);
    const listIds = page.spec.sections.flatMap((section) => (section.kind === 'checklist' ? [section.listId] : []));
    if (!parsed || listIds.length === 0) return document(404, notFoundDocument);
    if (!(await this.store.advanceRevision(page.id, revision))) {
      this.logger.info({ pageId: page.id }, 'checklist tick refused: stale or replayed');
      return { kind: 'document', status: 409, document: await this.render({ ...page, revision: await this.currentRevision(page) }, { notice: STALE_NOTICE }) };
    }
    const result = await this.lists.setItemChecked(page.userId, listIds, parsed[1]!.toLowerCase(), parsed[2] === '1');
    if (!result.ok) return document(404, notFoundDocument);
    this.logger.info({ pageId: page.id, userId: page.userId, effect: result.value.effect }, 'checklist item ticked on a page');
    const index = page.spec.sections.findIndex((candidate) => candidate.kind === 'checklist' && candidate.listId === result.value.listId);
    return { kind: 'redirect', fragment: `s${Math.max(0, index)}` };
  }

  private async submitForm(page: PageRecord, revision: number, index: number, body: Record<string, unknown>): Promise<PageResponse> {
    const section = page.spec.sections[index];
    const definition = section?.kind === 'form' ? this.forms.get(section.form) : undefined;
    if (!definition) return document(404, notFoundDocument);
    const values = submittedValues(definition, body);
    const refused = async (status: number, state: Omit<FormState, 'values'>, notice?: string) =>
      ({ kind: 'document', status, document: await this.render(page, { notice, form: { index, state: { values, ...state } } }) }) as const;
    const parsed = definition.schema.safeParse(values);
    if (!parsed.success) return refused(422, validationMessages(parsed.error, definition));
    if (!(await this.store.advanceRevision(page.id, revision))) {
      return { kind: 'document', status: 409, document: await this.render({ ...page, revision: await this.currentRevision(page) }, { notice: STALE_NOTICE }) };
    }
    const current = { ...page, revision: page.revision + 1 };
    const outcome = await definition.submit(page.userId, parsed.data);
    this.logger.info({ pageId: page.id, userId: page.userId, form: definition.id, ok: outcome.ok }, 'page form submitted');
    if (!outcome.ok) return { kind: 'document', status: 422, document: await this.render(current, { form: { index, state: { values, fieldErrors: outcome.fieldErrors, formError: outcome.formError } } }) };
    return { kind: 'document', status: 200, document: await this.render(current, { form: { index, state: { values: await definition.initialValues(page.userId), saved: outcome.message } } }) };
  }

  private async currentRevision(page: PageRecord): Promise<number> {
    return (await this.store.revision(page.id)) ?? page.revision;
  }

  private async find(token: string): Promise<{ kind: 'page'; page: PageRecord } | { kind: 'refused'; response: PageResponse }> {
    if (!isTokenShaped(token)) return { kind: 'refused', response: document(404, notFoundDocument) };
    const page = await this.store.findByTokenHash(hashToken(token));
    if (!page) return { kind: 'refused', response: document(404, notFoundDocument) };
    if (page.expiresAt.getTime() <= this.clock.now().getTime()) return { kind: 'refused', response: document(404, expiredDocument) };
    return { kind: 'page', page };
  }

  /** Reads what the page shows live (checklist items, form values), then renders it. */
  private async render(page: PageRecord, extra: { notice?: string | undefined; form?: { index: number; state: FormState } } = {}): Promise<RenderedDocument> {
    const checklists = new Map<number, ChecklistItems | undefined>();
    const forms = new Map<number, { definition: ReturnType<FormRegistry['get']>; state: FormState }>();
    await Promise.all(
      page.spec.sections.map(async (section, index) => {
        if (section.kind === 'checklist') {
          const items = await this.lists.items(page.userId, section.listId);
          checklists.set(index, items ? { items } : undefined);
        } else if (section.kind === 'form') {
          const definition = this.forms.get(section.form);
          const state = extra.form?.index === index ? extra.form.state : { values: definition ? await definition.initialValues(page.userId) : {} };
          forms.set(index, { definition, state });
        }
      }),
    );
    return renderPage({ page: page.spec, expiresAt: page.expiresAt, controls: { csrfToken: page.csrfToken, revision: page.revision }, checklists, forms, notice: extra.notice });
  }
}

function document(status: number, rendered: RenderedDocument): PageResponse {
  return { kind: 'document', status, document: rendered };
}
