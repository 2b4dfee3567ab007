import { DateTime } from 'luxon';
import { html, type SafeHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import type { AgendaSection, KeyValueSection, LinksSection, ListSection, TableSection, TextSection } from './page-spec.js';

/**
 * The read-only section kinds, each to accessible HTML: a section is labelled by its
 * heading, tables have header cells and scroll inside their own box on a narrow screen,
 * agenda times are <time> elements. Every value is escaped by the `html` template.
 */

/** The section element around a kind's content, labelled by its heading when there is one. */
export function sectionShell(index: number, heading: string | undefined, className: string, content: SafeHtml | SafeHtml[]): SafeHtml {
  if (!heading) return html`<section class="${className}">${content}</section>\n`;
  return html`<section class="${className}" aria-labelledby="s${index}"><h2 id="s${index}">${heading}</h2>${content}</section>\n`;
}

export function renderText(section: TextSection, index: number): SafeHtml {
  return sectionShell(index, section.heading, 'text', renderMarkdown(section.markdown));
}

export function renderList(section: ListSection, index: number): SafeHtml {
  const items = section.items.map((item) => html`<li>${item}</li>\n`);
  return sectionShell(index, section.heading, 'list', section.ordered ? html`<ol>${items}</ol>` : html`<ul>${items}</ul>`);
}

export function renderTable(section: TableSection, index: number): SafeHtml {
  const width = section.columns.length;
  const header = section.columns.map((column) => html`<th scope="col">${column}</th>`);
  const rows = section.rows.map((row) => {
    const cells = Array.from({ length: width }, (_, column) => row[column] ?? '');
    // The first cell names its row, for screen readers reading across.
    return html`<tr>${cells.map((cell, column) => (column === 0 ? html`<th scope="row">${cell}</th>` : html`<td>${cell}</td>`))}</tr>\n`;
  });
  return sectionShell(
    index,
    section.heading,
    'table',
    html`<div class="scroll" role="region" aria-label="${section.caption ?? section.heading ?? 'Table'}" tabindex="0"><table>${section.caption ? html`<caption>${section.caption}</caption>` : ''}<thead><tr>${header}</tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}

export function renderAgenda(section: AgendaSection, index: number, timezone: string, language: string): SafeHtml {
  const days = section.days.map((day) => {
    const date = DateTime.fromISO(day.date, { zone: timezone }).setLocale(language);
    const label = day.label ?? (date.isValid ? date.toFormat('cccc d LLLL') : day.date);
    const entries =
      day.entries.length === 0
        ? html`<p class="muted">Nothing planned.</p>`
        : html`<ol>${day.entries.map((entry) => {
            const when = entry.time
              ? html`<time datetime="${day.date}T${entry.time}">${entry.time}</time>${entry.end ? html`–<time datetime="${day.date}T${entry.end}">${entry.end}</time>` : ''}`
              : 'All day';
            return html`<li><span>${when}</span><span>${entry.title}${entry.detail ? html`<small>${entry.detail}</small>` : ''}</span></li>\n`;
          })}</ol>`;
    return html`<h3><time datetime="${day.date}">${label}</time></h3>${entries}`;
  });
  return sectionShell(index, section.heading, 'agenda', days.length > 0 ? days : [html`<p class="muted">Nothing planned.</p>`]);
}

export function renderKeyValue(section: KeyValueSection, index: number): SafeHtml {
  return sectionShell(index, section.heading, 'key-value', html`<dl>${section.pairs.map((pair) => html`<dt>${pair.key}</dt><dd>${pair.value}</dd>\n`)}</dl>`);
}

export function renderLinks(section: LinksSection, index: number): SafeHtml {
  const links = section.links.map(
    (link) =>
      html`<li><a href="${link.url}" rel="noopener noreferrer nofollow">${link.label}</a>${link.description ? html`<br><span class="muted">${link.description}</span>` : ''}</li>\n`,
  );
  return sectionShell(index, section.heading, 'links', html`<ul>${links}</ul>`);
}
