import type { z } from 'zod';

/** One labelled field of a form. Names never start with "_" (those are the page's own). */
export interface FormField {
  name: string;
  label: string;
  type: 'text' | 'email' | 'password' | 'url' | 'number' | 'tel' | 'textarea' | 'select' | 'checkbox';
  required?: boolean;
  /** Shown under the label, e.g. "e.g. Europe/London". */
  hint?: string;
  /** For `select`. */
  options?: Array<{ value: string; label: string }>;
  /** The browser's autofill hint, e.g. "name", "username", "current-password". */
  autocomplete?: string;
  maxLength?: number;
}

/** What a submission did: saved (with a line to show), or refused with messages per field. */
type FormOutcome =
  | { ok: true; message: string }
  | { ok: false; fieldErrors?: Record<string, string>; formError?: string };

/**
 * A form a page can carry (the connect pages are built from these). The page renders the
 * fields; a submission is checked against `schema` on the server, and only valid values
 * reach `submit`, which goes through the same services the agents use. Passwords are
 * never written back into a re-rendered form.
 */
export interface FormDefinition<Schema extends z.ZodType<unknown, Record<string, string>> = z.ZodType<unknown, Record<string, string>>> {
  /** Stable id a page spec refers to, e.g. "profile". */
  id: string;
  /** The section heading when the page gives none. */
  title: string;
  /** For ui-agent: when to put this form on a page. */
  description: string;
  submitLabel: string;
  fields: FormField[];
  /** Validates the submitted strings (field name → value); its messages are shown to the user. */
  schema: Schema;
  /** The values the form opens with (the user's current settings). */
  initialValues(userId: string): Promise<Record<string, string>>;
  submit(userId: string, values: z.output<Schema>): Promise<FormOutcome>;
}

/** What rendering and reading a form needs: its fields and labels (the connect pages' forms have these too). */
export type FormLayout = Pick<FormDefinition, 'title' | 'fields' | 'submitLabel'>;

/** Declares a form with its values' type inferred from its schema. */
export function defineForm<Schema extends z.ZodType<unknown, Record<string, string>>>(definition: FormDefinition<Schema>): FormDefinition<Schema> {
  const names = new Set<string>();
  for (const field of definition.fields) {
    if (field.name.startsWith('_')) throw new Error(`form "${definition.id}": field names starting with "_" are reserved ("${field.name}")`);
    if (names.has(field.name)) throw new Error(`form "${definition.id}": field "${field.name}" is declared twice`);
    names.add(field.name);
  }
  return definition;
}

/** The forms pages may carry, by id. */
export class FormRegistry {
  private readonly forms = new Map<string, FormDefinition>();

  constructor(forms: FormDefinition[] = []) {
    for (const form of forms) this.register(form);
  }

  register(form: FormDefinition): void {
    if (this.forms.has(form.id)) throw new Error(`form "${form.id}" is registered twice`);
    this.forms.set(form.id, form);
  }

  get(id: string): FormDefinition | undefined {
    return this.forms.get(id);
  }

  list(): FormDefinition[] {
    return [...this.forms.values()];
  }
}

/**
 * The submitted values of a form's fields only (other posted names are ignored): text as
 * posted, a repeated name as its last value, an unticked checkbox as "".
 */
export function submittedValues(form: Pick<FormLayout, 'fields'>, body: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of form.fields) {
    const raw = body[field.name];
    const value: unknown = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    values[field.name] = typeof value === 'string' ? value : '';
  }
  return values;
}

/** One message per field (the first problem zod found with it); problems with no field go to the form. */
export function validationMessages(error: z.ZodError, form: Pick<FormLayout, 'fields'>): { fieldErrors: Record<string, string>; formError?: string } {
  const fieldErrors: Record<string, string> = {};
  const formProblems: string[] = [];
  const known = new Set(form.fields.map((field) => field.name));
  for (const issue of error.issues) {
    const name = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
    if (name && known.has(name)) fieldErrors[name] ??= issue.message;
    else formProblems.push(issue.message);
  }
  return { fieldErrors, ...(formProblems.length > 0 ? { formError: formProblems.join(' ') } : {}) };
}

/** A posted field: the last value if repeated, undefined if absent. */
export function postedField(body: Record<string, unknown>, name: string): string | undefined {
  const raw = body[name];
  const value: unknown = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' ? value : undefined;
}
