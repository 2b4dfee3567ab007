import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineForm } from '../../src/pages/form-definition.js';
import { capPage } from '../../src/pages/page-limits.js';
import { expiredDocument, notFoundDocument, renderPage, type PageView } from '../../src/pages/page-renderer.js';
import { PAGE_LIMITS, pageInputSchema, storedPageSchema, type StoredPage } from '../../src/pages/page-spec.js';

const ITEM = '0192c3c4-1234-7abc-8def-0123456789ab';
const LIST = '0192c3c4-0000-7abc-8def-0123456789ab';

function view(page: Partial<StoredPage> & Pick<StoredPage, 'sections'>, extra: Partial<PageView> = {}): PageView {
  return {
    page: storedPageSchema.parse({ title: 'My week', timezone: 'Europe/London', ...page }),
    expiresAt: new Date('2026-01-31T10:00:00Z'),
    controls: { csrfToken: 'c'.repeat(43), revision: 4 },
    checklists: new Map(),
    forms: new Map(),
    ...extra,
  };
}

const loginForm = defineForm({
  id: 'login',
  title: 'Connect',
  description: 'test form',
  submitLabel: 'Connect',
  fields: [
    { name: 'user', label: 'User name', type: 'text', required: true, hint: 'Your mailbox login' },
    { name: 'secret', label: 'App password', type: 'password', required: true },
  ],
  schema: z.object({ user: z.string().min(1, 'Enter your user name.'), secret: z.string().min(1) }),
  initialValues: async () => ({ user: '', secret: '' }),
  submit: async () => ({ ok: true, message: 'Connected.' }),
});

describe('rendering each section kind', () => {
  it('renders a whole document: title, language, noindex, no referrer, a footer with the expiry in the page\'s zone', () => {
    const { html } = renderPage(view({ sections: [{ kind: 'text', markdown: 'hello' }] }));
    expect(html).toMatch(/^<!doctype html>\n<html lang="en" dir="ltr">/);
    expect(html).toContain('<title>My week</title>');
    expect(html).toContain('<meta name="robots" content="noindex,nofollow">');
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
    expect(html).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
    expect(html).toContain('This link stops working Saturday 31 January, 10:00');
  });

  it('text: the Markdown subset, headings below the section heading, links with rel, no raw HTML, no images', () => {
    const { html } = renderPage(
      view({ sections: [{ kind: 'text', heading: 'Notes', markdown: '# Plan\n**bold** *it* `code` ~~old~~\n- one\n- two\n\n1. first\n\n> quoted\n\n[docs](https://example.com/a) ![pic](https://example.com/p.png)' }] }),
    );
    expect(html).toContain('<h2 id="s0">Notes</h2><h3>Plan</h3>');
    expect(html).toContain('<strong>bold</strong> <em>it</em> <code>code</code> <s>old</s>');
    expect(html).toContain('<ul>\n<li>one</li>\n<li>two</li>\n</ul>');
    expect(html).toContain('<ol>\n<li>first</li>\n</ol>');
    expect(html).toContain('<blockquote>');
    expect(html).toContain('<a href="https://example.com/a" rel="noopener noreferrer nofollow">docs</a>');
    expect(html).not.toContain('<img');
  });

  it('list, table, key-value and links', () => {
    const { html } = renderPage(
      view({
        sections: [
          { kind: 'list', heading: 'Ideas', ordered: true, items: ['a', 'b'] },
          { kind: 'table', heading: 'Flights', caption: 'Prices', columns: ['Flight', 'Price'], rows: [['LH 400', '€420'], ['BA 117']] },
          { kind: 'key-value', pairs: [{ key: 'Gate', value: 'B12' }] },
          { kind: 'links', links: [{ label: 'Check in', url: 'https://airline.example/checkin', description: 'opens 24 h before' }] },
        ],
      }),
    );
    expect(html).toContain('<ol><li>a</li>\n<li>b</li>\n</ol>');
    expect(html).toContain('<div class="scroll" role="region" aria-label="Prices" tabindex="0"><table><caption>Prices</caption>');
    expect(html).toContain('<thead><tr><th scope="col">Flight</th><th scope="col">Price</th></tr></thead>');
    // A short row is padded to the columns.
    expect(html).toContain('<tr><th scope="row">BA 117</th><td></td></tr>');
    expect(html).toContain('<dl><dt>Gate</dt><dd>B12</dd>');
    expect(html).toContain('<a href="https://airline.example/checkin" rel="noopener noreferrer nofollow">Check in</a><br><span class="muted">opens 24 h before</span>');
  });

  it('agenda: days labelled in the page\'s language, <time> elements, all-day entries, empty days said plainly', () => {
    const { html } = renderPage(
      view({
        sections: [
          {
            kind: 'agenda',
            heading: 'This week',
            days: [
              { date: '2026-01-28', entries: [{ time: '09:00', end: '09:30', title: 'Standup', detail: 'Room 4' }, { title: 'Holiday' }] },
              { date: '2026-01-29', label: 'Tomorrow', entries: [] },
            ],
          },
        ],
      }),
    );
    expect(html).toContain('<h3><time datetime="2026-01-28">Wednesday 28 January</time></h3>');
    expect(html).toContain('<li><span><time datetime="2026-01-28T09:00">09:00</time>–<time datetime="2026-01-28T09:30">09:30</time></span><span>Standup<small>Room 4</small></span></li>');
    expect(html).toContain('<li><span>All day</span><span>Holiday</span></li>');
    expect(html).toContain('<h3><time datetime="2026-01-29">Tomorrow</time></h3><p class="muted">Nothing planned.</p>');
  });

  it('checklist: one form with the CSRF token and revision, a toggle button per item saying what it asks for', () => {
    const { html } = renderPage(
      view(
        { sections: [{ kind: 'checklist', heading: 'Shopping', list: 'shopping', listId: LIST }] },
        { checklists: new Map([[0, { items: [{ id: ITEM, text: 'milk', checked: true }, { id: LIST, text: 'eggs', checked: false }] }]]) },
      ),
    );
    expect(html).toContain(`<form method="post"><input type="hidden" name="_csrf" value="${'c'.repeat(43)}"><input type="hidden" name="_revision" value="4">`);
    expect(html).toContain(`<button name="_toggle" value="${ITEM}:0" aria-pressed="true"><span>milk</span></button>`);
    expect(html).toContain(`<button name="_toggle" value="${LIST}:1" aria-pressed="false"><span>eggs</span></button>`);
    expect(html).toContain('1 of 2 done');
  });

  it('checklist whose list is gone, or empty, says so', () => {
    const gone = renderPage(view({ sections: [{ kind: 'checklist', list: 'packing', listId: LIST }] }, { checklists: new Map([[0, undefined]]) }));
    expect(gone.html).toContain('This list no longer exists.');
    const empty = renderPage(view({ sections: [{ kind: 'checklist', list: 'packing', listId: LIST }] }, { checklists: new Map([[0, { items: [] }]]) }));
    expect(empty.html).toContain('Nothing on this list.');
  });

  it('form: labelled fields, hints and errors tied to them, the problem announced, passwords never written back', () => {
    const { html } = renderPage(
      view(
        { sections: [{ kind: 'form', form: 'login' }] },
        { forms: new Map([[0, { definition: loginForm, state: { values: { user: 'ana"<x>', secret: 'hunter2' }, fieldErrors: { user: 'Enter your user name.' } } }]]) },
      ),
    );
    expect(html).toContain('<form method="post" novalidate>');
    expect(html).toContain('<input type="hidden" name="_section" value="0">');
    expect(html).toContain('<p class="error" role="alert">Please correct the fields marked below.</p>');
    expect(html).toContain('<label for="f0-user">User name</label><p class="hint" id="f0-user-hint">Your mailbox login</p>');
    expect(html).toContain('<input type="text" id="f0-user" name="user" required aria-required="true" aria-invalid="true" aria-describedby="f0-user-error f0-user-hint" value="ana&quot;&lt;x&gt;">');
    expect(html).toContain('<p class="error" id="f0-user-error">Enter your user name.</p>');
    expect(html).toContain('<input type="password" id="f0-secret" name="secret" required aria-required="true" value="">');
    expect(html).not.toContain('hunter2');
    expect(html).toContain('<button class="button" type="submit">Connect</button>');
  });

  it('right-to-left languages mirror the page', () => {
    expect(renderPage(view({ language: 'he', sections: [{ kind: 'text', markdown: 'שלום' }] })).html).toContain('<html lang="he" dir="rtl">');
  });
});

describe('safety', () => {
  const payload = '<script>alert(1)</script>"><img src=x onerror=alert(2)>\'><svg onload=alert(3)>';

  it('a spec with script in every text field renders it as inert text, and the CSP runs no script at all', () => {
    const { html, contentSecurityPolicy } = renderPage(
      view(
        {
          title: payload,
          sections: [
            { kind: 'text', heading: payload, markdown: `${payload}\n\n[x](javascript:alert(4)) [y](data:text/html,<script>alert(5)</script>)` },
            { kind: 'list', heading: payload, items: [payload] },
            { kind: 'table', heading: payload, caption: payload, columns: [payload], rows: [[payload]] },
            { kind: 'agenda', heading: payload, days: [{ date: '2026-01-28', label: payload, entries: [{ time: '09:00', title: payload, detail: payload }] }] },
            { kind: 'key-value', heading: payload, pairs: [{ key: payload, value: payload }] },
            { kind: 'links', heading: payload, links: [{ label: payload, url: 'https://example.com/"><script>', description: payload }] },
            { kind: 'checklist', heading: payload, list: payload.slice(0, 80), listId: LIST },
            { kind: 'form', heading: payload, form: 'login' },
          ],
        },
        {
          checklists: new Map([[6, { items: [{ id: ITEM, text: payload, checked: false }] }]]),
          forms: new Map([[7, { definition: loginForm, state: { values: { user: payload, secret: payload }, fieldErrors: { user: payload }, formError: payload } }]]),
        },
      ),
    );
    expect(html).not.toMatch(/<script|<img|<svg|href="(javascript:|data:text)/i);
    // The refused links stay visible as the text that was written.
    expect(html).toContain('[x](javascript:alert(4))');
    // Every real tag starts with "<" (text has &lt;) and every attribute value is double-quoted
    // (with &quot; inside): with the values blanked, no tag has gained an event handler.
    expect(html.replace(/"[^"]*"/g, '""')).not.toMatch(/<[^>]*\s(onerror|onload)=/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&gt;&lt;svg onload=alert(3)&gt;');
    expect(html).toContain('href="https://example.com/&quot;&gt;&lt;script&gt;"');
    expect(contentSecurityPolicy).toContain("script-src 'none'");
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    expect(contentSecurityPolicy).not.toContain('unsafe');
  });

  it('allows exactly the stylesheet in the document, by its hash', () => {
    const { html, contentSecurityPolicy } = renderPage(view({ sections: [{ kind: 'text', markdown: 'x' }] }));
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256').update(styles[0]!).digest('base64');
    expect(contentSecurityPolicy).toMatch(new RegExp(`style-src 'sha256-${hash.replace(/[+/]/g, '\\$&')}'(;|$)`));
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('the page spec refuses links that are not web, mail or phone links', () => {
    const schema = pageInputSchema();
    for (const url of ['javascript:alert(1)', 'data:text/html,x', '/p/relative', 'vbscript:x', 'file:///etc/passwd']) {
      expect(schema.safeParse({ title: 't', sections: [{ kind: 'links', links: [{ label: 'l', url }] }] }).success, url).toBe(false);
    }
    expect(schema.safeParse({ title: 't', sections: [{ kind: 'links', links: [{ label: 'l', url: 'mailto:a@b.example' }] }] }).success).toBe(true);
  });

  it('not-found and expired pages say nothing about any page', () => {
    expect(notFoundDocument.html).toContain('Page not found');
    expect(expiredDocument.html).toContain('This link has expired.');
    expect(notFoundDocument.contentSecurityPolicy).toContain("script-src 'none'");
  });
});

describe('a huge spec is capped, with a note', () => {
  it('cuts sections, items, rows, columns, agenda entries and links to the limits and says what was left out', () => {
    const many = <Item>(count: number, make: (index: number) => Item) => Array.from({ length: count }, (_, index) => make(index));
    const input = pageInputSchema().parse({
      title: 'Everything',
      sections: [
        { kind: 'list', heading: 'Big list', items: many(1000, (index) => `item ${index}`) },
        { kind: 'table', columns: many(12, (index) => `c${index}`), rows: many(400, (index) => many(12, (column) => `${index}.${column}`)) },
        { kind: 'agenda', days: many(3, (day) => ({ date: `2026-02-0${day + 1}`, entries: many(300, (index) => ({ time: '09:00', title: `e${index}` })) })) },
        ...many(60, (index) => ({ kind: 'text', markdown: `section ${index}` })),
      ],
    });
    const { page, notes } = capPage(input as Parameters<typeof capPage>[0]);
    expect(page.sections).toHaveLength(PAGE_LIMITS.sections);
    expect(notes).toEqual([
      '23 more sections were left out.',
      '“Big list”: showing the first 300 of 1000 items.',
      'Section 2: showing the first 8 of 12 columns.',
      'Section 2: showing the first 300 of 400 rows.',
      'Section 3: showing the first 500 of 900 entries.',
    ]);
    const table = page.sections[1] as { rows: string[][] };
    expect(table.rows.every((row) => row.length === 8)).toBe(true);
    const agenda = page.sections[2] as { days: Array<{ entries: unknown[] }> };
    expect(agenda.days.map((day) => day.entries.length)).toEqual([300, 200]);

    const stored = storedPageSchema.parse({ ...page, timezone: 'UTC', notes });
    const { html } = renderPage({ page: stored, expiresAt: new Date(), controls: { csrfToken: 'x', revision: 0 }, checklists: new Map(), forms: new Map() });
    expect(html).toContain('This page was shortened. 23 more sections were left out.');
  });

  it('drops trailing sections beyond the size budget, keeping the first', () => {
    const long = 'x'.repeat(19_000);
    const input = { title: 'Long', sections: Array.from({ length: 30 }, () => ({ kind: 'text' as const, markdown: long })) };
    const { page, notes } = capPage(input);
    expect(page.sections.length).toBeLessThan(30);
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(PAGE_LIMITS.specCharacters);
    expect(notes).toEqual([`${30 - page.sections.length} more sections were left out to keep the page small.`]);
  });
});
