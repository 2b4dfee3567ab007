import { html, type SafeHtml } from './html.js';
import { CONTROL_FIELDS, controlInputs, type PageControls } from './form-renderer.js';
import type { ChecklistSection } from './page-spec.js';
import { sectionShell } from './section-renderers.js';

/** A Herald list's items as the page shows them (read when the page is opened). */
export interface ChecklistItems {
  items: Array<{ id: string; text: string; checked: boolean }>;
}

/**
 * A checklist bound to one of the user's lists: each item is a toggle button in one form,
 * so ticking works without any script and is announced as pressed or not. The button's
 * value names the item and the state it asks for ("<id>:1" ticks, "<id>:0" unticks).
 */
export function renderChecklist(section: ChecklistSection, index: number, list: ChecklistItems | undefined, controls: PageControls): SafeHtml {
  const heading = section.heading ?? section.list;
  if (!list) return sectionShell(index, heading, 'checklist', html`<p class="muted">This list no longer exists.</p>`);
  if (list.items.length === 0) return sectionShell(index, heading, 'checklist', html`<p class="muted">Nothing on this list.</p>`);
  const done = list.items.filter((item) => item.checked).length;
  const items = list.items.map(
    (item) =>
      html`<li><button name="${CONTROL_FIELDS.toggle}" value="${item.id}:${item.checked ? 0 : 1}" aria-pressed="${item.checked ? 'true' : 'false'}"><span>${item.text}</span></button></li>\n`,
  );
  return sectionShell(
    index,
    heading,
    'checklist',
    html`<form method="post">${controlInputs(controls)}<ul class="checklist">${items}</ul></form><p class="muted">${done} of ${list.items.length} done</p>`,
  );
}
