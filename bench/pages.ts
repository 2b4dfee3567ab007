/**
 * Page benchmark (issue 8): how long Herald takes to render a page and how heavy the page
 * is, for the two biggest everyday pages: a week's agenda of 200 entries and a 300-item
 * checklist. The render is the pure renderer (spec + live data → HTML); a third row opens
 * the checklist page through PageService on Postgres (token lookup, list read, render),
 * for context. Targets: render p99 under 5 ms, page weight under 60 kB.
 */
import { connectDatabase } from '../src/db/database.js';
import { ListService } from '../src/lists/list-service.js';
import { FormRegistry } from '../src/pages/form-definition.js';
import { renderPage, type PageView } from '../src/pages/page-renderer.js';
import { PageService } from '../src/pages/page-service.js';
import { storedPageSchema } from '../src/pages/page-spec.js';
import { PageStore } from '../src/pages/page-store.js';
import { systemClock } from '../src/shared/clock.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, ms, percentile, table } from './support/report.js';
import { sampleMs } from './support/sampling.js';

const WARM_UP = 200;
const RUNS = 2000;
const RENDER_TARGET_MS = 5;
const WEIGHT_TARGET_BYTES = 60_000;

const titles = ['Standup', 'Design review with the platform team', 'Lunch with Dana', 'Dentist', 'Pick up the kids', 'Gym', 'Call mom', 'Flight BA 117 to New York'];

/** 200 entries over seven days, with times, end times and some details. */
function agendaView(): PageView {
  const days = Array.from({ length: 7 }, (_, day) => ({
    date: `2026-02-0${day + 2}`,
    entries: Array.from({ length: day < 4 ? 29 : 28 }, (_, index) => {
      const minutes = 7 * 60 + index * 30;
      const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
      return { time, end: index % 3 === 0 ? time.replace(/:(\d\d)$/, (_, mm: string) => `:${mm === '00' ? '20' : '50'}`) : undefined, title: titles[index % titles.length]!, detail: index % 4 === 0 ? 'Room 4, second floor' : undefined };
    }),
  }));
  const page = storedPageSchema.parse({ title: 'Your week', timezone: 'Europe/London', sections: [{ kind: 'agenda', heading: 'Week of 2 February', days }] });
  return { page, expiresAt: new Date('2026-02-05T10:00:00Z'), controls: { csrfToken: 'x'.repeat(43), revision: 3 }, checklists: new Map(), forms: new Map() };
}

/** A 300-item checklist (every third item ticked), as a page shows a Herald list. */
function checklistView(): PageView {
  const items = Array.from({ length: 300 }, (_, index) => ({ id: `0192c3c4-${String(index).padStart(4, '0')}-7abc-8def-0123456789ab`, text: `${titles[index % titles.length]!.split(' ')[0]} item ${index + 1}`, checked: index % 3 === 0 }));
  const page = storedPageSchema.parse({ title: 'Packing', timezone: 'Europe/London', sections: [{ kind: 'checklist', heading: 'Packing list', list: 'packing', listId: '0192c3c4-0000-7abc-8def-0123456789ab' }] });
  return { page, expiresAt: new Date('2026-02-05T10:00:00Z'), controls: { csrfToken: 'x'.repeat(43), revision: 3 }, checklists: new Map([[0, { items }]]), forms: new Map() };
}

export const pagesBenchmark: Benchmark = {
  name: 'pages',
  description: 'Page rendering: p50/p99 and weight of a 200-entry agenda and a 300-item checklist',
  async run({ postgres, logger, print }) {
    print(banner(`Pages (${RUNS} renders each after ${WARM_UP} warm-up)`));
    const rows: Array<Array<string | number>> = [];
    const checks: Check[] = [];
    for (const [name, view] of [
      ['agenda, 200 entries', agendaView()],
      ['checklist, 300 items', checklistView()],
    ] as const) {
      const bytes = Buffer.byteLength(renderPage(view).html);
      const samples = await sampleMs(RUNS, WARM_UP, () => renderPage(view));
      const p99 = percentile(samples, 0.99);
      rows.push([`render: ${name}`, ms(percentile(samples, 0.5)), ms(p99), bytes]);
      checks.push({ name: `${name}: render p99`, target: `< ${RENDER_TARGET_MS} ms`, measured: `${ms(p99)} ms`, pass: p99 < RENDER_TARGET_MS, kind: 'target' });
      checks.push({ name: `${name}: page weight`, target: `< ${WEIGHT_TARGET_BYTES / 1000} kB`, measured: `${(bytes / 1000).toFixed(1)} kB`, pass: bytes < WEIGHT_TARGET_BYTES, kind: 'target' });
    }

    const databaseInfo = await postgres.createMigratedDatabase('pages', logger);
    const database = connectDatabase(databaseInfo.url, 5);
    try {
      const lists = new ListService(database.prisma, systemClock);
      const pages = new PageService(new PageStore(database.prisma, logger), lists, new FormRegistry(), systemClock, { ttlHours: 72, publicBaseUrl: 'https://herald.example' }, logger);
      const user = await database.prisma.user.create({ data: { phone: '+14155550100', timezone: 'Europe/London', updatedAt: new Date() } });
      await lists.addItems(user.id, 'packing', Array.from({ length: 300 }, (_, index) => `Item ${index + 1}`));
      const made = await pages.create(user.id, 'Europe/London', { title: 'Packing', sections: [{ kind: 'checklist', list: 'packing' }] });
      if (!made.ok) throw new Error(made.error);
      const token = made.value.link.split('/p/')[1]!;
      const samples = await sampleMs(RUNS, WARM_UP, () => pages.open(token));
      const opened = await pages.open(token);
      const bytes = opened.kind === 'document' ? Buffer.byteLength(opened.document.html) : Number.NaN;
      rows.push(['open /p/<token>: checklist, 300 items (Postgres + render)', ms(percentile(samples, 0.5)), ms(percentile(samples, 0.99)), bytes]);
      checks.push({ name: 'open a page: 200', target: 'a document', measured: opened.kind === 'document' ? String(opened.status) : opened.kind, pass: opened.kind === 'document' && opened.status === 200, kind: 'correctness' });
    } finally {
      await database.close();
    }
    print(table(['page', 'p50 ms', 'p99 ms', 'bytes'], rows));
    print('render = the pure renderer (spec + live data → HTML, stylesheet included); bytes = the whole HTML document');
    return { checks };
  },
};
