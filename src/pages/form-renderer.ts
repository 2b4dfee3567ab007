import { html, type SafeHtml } from './html.js';
import type { FormField, FormLayout } from './form-definition.js';
import { sectionShell } from './section-renderers.js';

/**
 * The page's own fields on every form it carries. A POST must bring back the page's CSRF
 * token and the revision it was rendered at (a stale or replayed form is refused).
 * Their names start with "_", which form fields may not use.
 */
export const CONTROL_FIELDS = { csrf: '_csrf', revision: '_revision', section: '_section', toggle: '_toggle' } as const;

/** Where a page's interactive sections post: the page's own URL, with these controls. */
export interface PageControls {
  csrfToken: string;
  revision: number;
}

export function controlInputs(controls: PageControls): SafeHtml {
  return html`<input type="hidden" name="${CONTROL_FIELDS.csrf}" value="${controls.csrfToken}"><input type="hidden" name="${CONTROL_FIELDS.revision}" value="${controls.revision}">`;
}

/** A form as it is shown: its values, and after a refused submission the messages. */
export interface FormState {
  values: Record<string, string>;
  fieldErrors?: Record<string, string> | undefined;
  formError?: string | undefined;
  /** After a successful submission: what was done. */
  saved?: string | undefined;
}

/**
 * A form section: every field labelled, hints and errors tied to their field with
 * aria-describedby, the first problem announced. Validation is the server's (`novalidate`),
 * so every browser shows the same messages. Passwords are never written back.
 */
export function renderForm(form: FormLayout, heading: string | undefined, index: number, state: FormState, controls: PageControls): SafeHtml {
  const fields = form.fields.map((field) => renderField(field, `f${index}-${field.name}`, state.values[field.name] ?? '', state.fieldErrors?.[field.name]));
  const problem = state.formError ?? (state.fieldErrors && Object.keys(state.fieldErrors).length > 0 ? 'Please correct the fields marked below.' : undefined);
  return sectionShell(
    index,
    heading ?? form.title,
    'form',
    html`<form method="post" novalidate>${controlInputs(controls)}<input type="hidden" name="${CONTROL_FIELDS.section}" value="${index}">${
      problem ? html`<p class="error" role="alert">${problem}</p>` : ''
    }${fields}<button class="button" type="submit">${form.submitLabel}</button>${state.saved ? html`<p class="saved" role="status">${state.saved}</p>` : ''}</form>`,
  );
}

function renderField(field: FormField, id: string, value: string, error: string | undefined): SafeHtml {
  const described = [error ? `${id}-error` : '', field.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  const common = html`id="${id}" name="${field.name}"${field.required ? html` required aria-required="true"` : ''}${error ? html` aria-invalid="true"` : ''}${
    described ? html` aria-describedby="${described}"` : ''
  }${field.autocomplete ? html` autocomplete="${field.autocomplete}"` : ''}`;
  const hint = field.hint ? html`<p class="hint" id="${id}-hint">${field.hint}</p>` : '';
  const message = error ? html`<p class="error" id="${id}-error">${error}</p>` : '';
  if (field.type === 'checkbox') {
    return html`<label class="check"><input type="checkbox" ${common} value="on"${value ? html` checked` : ''}>${field.label}</label>${hint}${message}`;
  }
  let control: SafeHtml;
  if (field.type === 'textarea') {
    control = html`<textarea ${common} rows="4"${field.maxLength ? html` maxlength="${field.maxLength}"` : ''}>${value}</textarea>`;
  } else if (field.type === 'select') {
    const options = (field.options ?? []).map((option) => html`<option value="${option.value}"${option.value === value ? html` selected` : ''}>${option.label}</option>`);
    control = html`<select ${common}>${options}</select>`;
  } else {
    const shown = field.type === 'password' ? '' : value;
    control = html`<input type="${field.type}" ${common} value="${shown}"${field.maxLength ? html` maxlength="${field.maxLength}"` : ''}>`;
  }
  return html`<label for="${id}">${field.label}</label>${hint}${control}${message}`;
}
