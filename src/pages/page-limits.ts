import { PAGE_LIMITS, type InputSection, type PageInput } from './page-spec.js';

/** A page cut to {@link PAGE_LIMITS}, with what was left out, in words for the reader. */
export interface CappedPage {
  page: PageInput;
  notes: string[];
}

const MAX_NOTES = 10;

/**
 * Cuts an oversized page to the limits instead of refusing it: a 1,000-row answer still
 * becomes a page, with its first rows and a note saying how many were left out. Counts are
 * cut per section, then whole trailing sections go while the spec is over its size budget
 * (the first section always stays).
 */
export function capPage(input: PageInput): CappedPage {
  const notes: string[] = [];
  let sections = input.sections;
  if (sections.length > PAGE_LIMITS.sections) {
    notes.push(`${sections.length - PAGE_LIMITS.sections} more sections were left out.`);
    sections = sections.slice(0, PAGE_LIMITS.sections);
  }
  sections = sections.map((section, index) => capSection(section, index, notes));

  let size = JSON.stringify({ ...input, sections: [] }).length;
  const kept: InputSection[] = [];
  for (const section of sections) {
    size += JSON.stringify(section).length + 1;
    if (kept.length > 0 && size > PAGE_LIMITS.specCharacters) break;
    kept.push(section);
  }
  if (kept.length < sections.length) notes.push(`${sections.length - kept.length} more sections were left out to keep the page small.`);
  const shown = notes.length > MAX_NOTES ? [...notes.slice(0, MAX_NOTES - 1), `…and ${notes.length - MAX_NOTES + 1} more cuts.`] : notes;
  return { page: { ...input, sections: kept }, notes: shown };
}

function capSection(section: InputSection, index: number, notes: string[]): InputSection {
  const name = section.heading ? `“${section.heading.slice(0, 60)}”` : `Section ${index + 1}`;
  const cut = <Item>(items: Item[], max: number, what: string): Item[] => {
    if (items.length <= max) return items;
    notes.push(`${name}: showing the first ${max} of ${items.length} ${what}.`);
    return items.slice(0, max);
  };
  switch (section.kind) {
    case 'list':
      return { ...section, items: cut(section.items, PAGE_LIMITS.listItems, 'items') };
    case 'table': {
      const columns = cut(section.columns, PAGE_LIMITS.tableColumns, 'columns');
      // Cells beyond the headers have nowhere to go; rows are cut to the columns shown.
      const rows = cut(section.rows, PAGE_LIMITS.tableRows, 'rows').map((row) => row.slice(0, columns.length));
      return { ...section, columns, rows };
    }
    case 'agenda': {
      const days = cut(section.days, PAGE_LIMITS.agendaDays, 'days');
      const total = days.reduce((sum, day) => sum + day.entries.length, 0);
      if (total <= PAGE_LIMITS.agendaEntries) return { ...section, days };
      notes.push(`${name}: showing the first ${PAGE_LIMITS.agendaEntries} of ${total} entries.`);
      let left: number = PAGE_LIMITS.agendaEntries;
      const kept = days.map((day) => {
        const entries = day.entries.slice(0, left);
        left -= entries.length;
        return { ...day, entries };
      });
      return { ...section, days: kept.filter((day, dayIndex) => day.entries.length > 0 || days[dayIndex]!.entries.length === 0) };
    }
    case 'key-value':
      return { ...section, pairs: cut(section.pairs, PAGE_LIMITS.keyValuePairs, 'entries') };
    case 'links':
      return { ...section, links: cut(section.links, PAGE_LIMITS.links, 'links') };
    default:
      return section;
  }
}
