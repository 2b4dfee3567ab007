import { DateTime } from 'luxon';
import type { FormLayout } from './form-definition.js';
import { renderChecklist, type ChecklistItems } from './checklist-renderer.js';
import { renderForm, type FormState, type PageControls } from './form-renderer.js';
import { html, type SafeHtml } from './html.js';
import { renderDocument, type RenderedDocument } from './page-document.js';
import type { StoredPage, StoredSection } from './page-spec.js';
import { renderAgenda, renderKeyValue, renderLinks, renderList, renderTable, renderText, sectionShell } from './section-renderers.js';

/** Everything a page needs to render: the stored spec plus what was read for it now. */
export interface PageView {
  page: StoredPage;
  expiresAt: Date;
  controls: PageControls;
  /** Checklist items by section index; undefined when the list is gone. */
  checklists: ReadonlyMap<number, ChecklistItems | undefined>;
  /** Forms by section index: the definition (undefined when no longer registered) and state. */
  forms: ReadonlyMap<number, { definition: FormLayout | undefined; state: FormState }>;
  /** A line above the content, e.g. why a change was not saved. */
  notice?: string | undefined;
}

/** The page as a complete document. Pure: the same view gives the same bytes. */
export function renderPage(view: PageView): RenderedDocument {
  const { page } = view;
  const language = page.language ?? 'en';
  const notes = [...(view.notice ? [view.notice] : []), ...(page.notes.length > 0 ? [`This page was shortened. ${page.notes.join(' ')}`] : [])];
  const expires = DateTime.fromJSDate(view.expiresAt, { zone: page.timezone }).setLocale('en-GB');
  const body = html`<main><h1>${page.title}</h1>
${notes.map((note) => html`<div class="note" role="status"><p>${note}</p></div>`)}${page.sections.map((section, index) => renderSection(section, index, view, language))}</main>
<footer><p>Made by Herald for you. This link stops working ${expires.toFormat('cccc d LLLL, HH:mm')}; ask Herald for a fresh one any time.</p></footer>`;
  return renderDocument({ title: page.title, language, body });
}

function renderSection(section: StoredSection, index: number, view: PageView, language: string): SafeHtml {
  switch (section.kind) {
    case 'text':
      return renderText(section, index);
    case 'list':
      return renderList(section, index);
    case 'table':
      return renderTable(section, index);
    case 'agenda':
      return renderAgenda(section, index, view.page.timezone, language);
    case 'key-value':
      return renderKeyValue(section, index);
    case 'links':
      return renderLinks(section, index);
    case 'checklist':
      return renderChecklist(section, index, view.checklists.get(index), view.controls);
    case 'form': {
      const form = view.forms.get(index);
      if (!form?.definition) return sectionShell(index, section.heading, 'form', html`<p class="muted">This form is no longer available.</p>`);
      return renderForm(form.definition, section.heading, index, form.state, view.controls);
    }
  }
}

/**
 * A page that says only what the reader needs: no title, no owner, nothing from the page
 * it stands in for (an expired, revoked, unknown or malformed link all look like this,
 * expiry aside).
 */
export function renderNotice(title: string, message: string): RenderedDocument {
  return renderDocument({ title, body: html`<main><h1>${title}</h1><section><p>${message}</p></section></main>` });
}

/** For every link that leads nowhere: unknown, revoked, malformed, or not this page's. */
export const notFoundDocument = renderNotice('Page not found', 'There is no page at this address. Ask Herald for a new link.');

/** For a link past its expiry. */
export const expiredDocument = renderNotice('This page has expired', 'This link has expired. Ask Herald to show it again for a fresh link.');
