import { z } from 'zod';

/**
 * The page spec: what ui-agent fills in (it never writes HTML) and what Herald stores and
 * renders. Two schemas share the same element shapes:
 *
 * - {@link pageInputSchema}, the `render_page` tool's input: lists are not limited in
 *   length, because a huge answer is capped and noted ({@link ./page-limits.ts}) rather than
 *   refused; strings are limited, so one absurd field is an error the model can fix.
 * - {@link storedPageSchema}, what the page store holds and parses back (zod at the database
 *   boundary): within {@link PAGE_LIMITS}, checklists bound to a list id, the user's time zone,
 *   and any truncation notes.
 */

/** The most a stored page holds; larger input is cut to this, with a note on the page. */
export const PAGE_LIMITS = {
  sections: 40,
  listItems: 300,
  tableColumns: 8,
  tableRows: 300,
  agendaDays: 62,
  agendaEntries: 500,
  keyValuePairs: 100,
  links: 50,
  /** Characters of the whole spec as JSON: later sections are dropped beyond it. */
  specCharacters: 256_000,
} as const;

const LINK_SCHEMES = new Set(['https:', 'http:', 'mailto:', 'tel:']);

/** True for links a page may carry: web, mail and phone; never javascript:, data: or relative. */
export function isSafeLinkUrl(value: string): boolean {
  try {
    return LINK_SCHEMES.has(new URL(value).protocol);
  } catch {
    return false;
  }
}

const label = (max: number) => z.string().trim().min(1).max(max);
const heading = z.string().trim().max(120).optional().describe('Optional section heading');
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour time such as 09:30');
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2026-01-30');
const linkUrl = z.string().trim().max(2000).refine(isSafeLinkUrl, 'must be an https://, http://, mailto: or tel: URL');

const agendaEntry = z.object({
  time: clock.optional().describe('Start, 24-hour local time; omit for all-day'),
  end: clock.optional(),
  title: label(200),
  detail: z.string().trim().max(500).optional(),
});
const keyValuePair = z.object({ key: label(100), value: z.string().trim().max(1000) });
const link = z.object({ label: label(200), url: linkUrl, description: z.string().trim().max(300).optional() });

/** Arrays are capped in the stored schema and open in the input schema. */
type Capped = <Item extends z.ZodType>(item: Item, max: number) => z.ZodArray<Item>;
const capped: Capped = (item, max) => z.array(item).max(max);
const open: Capped = (item) => z.array(item);

function sectionSchemas(array: Capped) {
  return {
    text: z.object({
      kind: z.literal('text'),
      heading,
      markdown: z.string().max(20_000).describe('Markdown: paragraphs, **bold**, *italic*, `code`, [links](https://…), - bullet and 1. numbered lists, > quotes'),
    }),
    list: z.object({
      kind: z.literal('list'),
      heading,
      ordered: z.boolean().optional(),
      items: array(label(500), PAGE_LIMITS.listItems),
    }),
    table: z.object({
      kind: z.literal('table'),
      heading,
      caption: z.string().trim().max(200).optional(),
      columns: array(label(80), PAGE_LIMITS.tableColumns).min(1),
      rows: array(array(z.string().trim().max(300), PAGE_LIMITS.tableColumns), PAGE_LIMITS.tableRows),
    }),
    agenda: z.object({
      kind: z.literal('agenda'),
      heading,
      days: array(
        z.object({
          date: isoDate,
          label: label(80).optional().describe('Defaults to the weekday and date'),
          entries: array(agendaEntry, PAGE_LIMITS.agendaEntries),
        }),
        PAGE_LIMITS.agendaDays,
      ),
    }),
    keyValue: z.object({ kind: z.literal('key-value'), heading, pairs: array(keyValuePair, PAGE_LIMITS.keyValuePairs) }),
    links: z.object({ kind: z.literal('links'), heading, links: array(link, PAGE_LIMITS.links) }),
  };
}

const page = {
  title: label(120),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language code such as en or he')
    .optional()
    .describe("The page's language (the user's), e.g. en, he"),
};

const inputSections = sectionSchemas(open);
const inputChecklist = z.object({
  kind: z.literal('checklist'),
  heading,
  list: label(80).describe("The name of one of the user's Herald lists; its items can be ticked on the page"),
});

/**
 * The `render_page` input. `forms` are the form ids an agent may place (see
 * {@link ./form-definition.ts}); without any, the form kind is left out.
 */
export function pageInputSchema(forms: readonly string[] = []) {
  const formSection = forms.length > 0 ? [z.object({ kind: z.literal('form'), heading, form: z.enum(forms as [string, ...string[]]) })] : [];
  const sections = [...Object.values(inputSections), inputChecklist, ...formSection] as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]];
  return z.object({ ...page, sections: z.array(z.discriminatedUnion('kind', sections)).min(1) });
}

/** What `render_page` receives, whatever forms are registered. */
export type PageInput = {
  title: string;
  language?: string | undefined;
  sections: Array<InputSection>;
};
export type InputSection =
  | z.infer<(typeof inputSections)[keyof typeof inputSections]>
  | z.infer<typeof inputChecklist>
  | { kind: 'form'; heading?: string | undefined; form: string };

const storedSections = sectionSchemas(capped);
const storedChecklist = inputChecklist.extend({ listId: z.uuid() });
const storedForm = z.object({ kind: z.literal('form'), heading, form: label(60) });

/** A page as stored: bounded, bound to the user's lists, with its time zone and notes. */
export const storedPageSchema = z.object({
  ...page,
  timezone: z.string().min(1).max(64),
  /** Said at the top of the page when its input had to be cut. */
  notes: z.array(z.string().max(300)).max(10).default([]),
  sections: z
    .array(
      z.discriminatedUnion('kind', [
        storedSections.text,
        storedSections.list,
        storedSections.table,
        storedSections.agenda,
        storedSections.keyValue,
        storedSections.links,
        storedChecklist,
        storedForm,
      ]),
    )
    .min(1)
    .max(PAGE_LIMITS.sections),
});

export type StoredPage = z.infer<typeof storedPageSchema>;
export type StoredSection = StoredPage['sections'][number];
export type TextSection = z.infer<typeof storedSections.text>;
export type ListSection = z.infer<typeof storedSections.list>;
export type TableSection = z.infer<typeof storedSections.table>;
export type AgendaSection = z.infer<typeof storedSections.agenda>;
export type KeyValueSection = z.infer<typeof storedSections.keyValue>;
export type LinksSection = z.infer<typeof storedSections.links>;
export type ChecklistSection = z.infer<typeof storedChecklist>;
