import { createHash } from 'node:crypto';

/**
 * Herald's one stylesheet, shared by pages, forms and the dev phone: system fonts,
 * mobile-first (one column, 44 px touch targets, 16 px inputs so phones do not zoom),
 * light and dark from the device setting, logical properties so right-to-left pages
 * mirror. Inline in every document: a page loads nothing but itself.
 */
export const PAGE_STYLESHEET = `:root{color-scheme:light dark;--bg:#f5f6f8;--fg:#1b1f24;--muted:#566070;--card:#fff;--line:#dadfe5;--accent:#0b5fc4;--accent-fg:#fff;--ok:#1a7f37;--note-bg:#fff4ce;--note-fg:#4d3a00;--bad:#b42318;--radius:12px}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e7eaee;--muted:#9aa4b1;--card:#181c22;--line:#2c333c;--accent:#7ab8ff;--accent-fg:#06121f;--ok:#5cc16f;--note-bg:#3a3000;--note-fg:#ffe08a;--bad:#ff8a80}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
main{max-width:42rem;margin:0 auto;padding:1rem 1rem 2rem}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:0 0 .5rem}
h3,h4,h5,h6{font-size:1rem;margin:1rem 0 .25rem}
section{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1rem;margin:0 0 1rem}
a{color:var(--accent)}
p{margin:.5rem 0}
ul,ol{padding-inline-start:1.25rem;margin:.5rem 0}
blockquote{margin:.5rem 0;padding-inline-start:.75rem;border-inline-start:3px solid var(--line);color:var(--muted)}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--bg);padding:.1em .3em;border-radius:4px}
hr{border:0;border-top:1px solid var(--line)}
.note{background:var(--note-bg);color:var(--note-fg);border-radius:var(--radius);padding:.75rem 1rem;margin:0 0 1rem}
.note p{margin:0}
.muted,footer{color:var(--muted);font-size:.875rem}
footer{text-align:center;padding:0 1rem 2rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
caption{text-align:start;color:var(--muted);padding-bottom:.5rem}
th,td{text-align:start;padding:.5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:normal;min-width:4rem}
th{font-weight:600}
dl{display:grid;grid-template-columns:minmax(6rem,auto) 1fr;gap:.25rem 1rem;margin:0}
dt{color:var(--muted)}
dd{margin:0}
@media (max-width:30rem){dl{grid-template-columns:1fr;gap:0}dd{margin-bottom:.5rem}}
.agenda ol,ul.checklist{list-style:none;padding:0;margin:0}
.agenda li{display:flex;gap:.75rem;padding:.4rem 0;border-bottom:1px solid var(--line)}
.agenda li>span:first-child{flex:0 0 6.5rem;color:var(--muted);font-variant-numeric:tabular-nums}
.agenda small{display:block;color:var(--muted)}
.checklist button{display:flex;align-items:center;gap:.75rem;width:100%;min-height:44px;padding:.5rem .25rem;border:0;border-bottom:1px solid var(--line);background:none;color:inherit;font:inherit;text-align:start;cursor:pointer}
.checklist button::before{content:"";flex:0 0 1.25rem;height:1.25rem;border:2px solid var(--muted);border-radius:4px}
.checklist button[aria-pressed=true]::before{content:"✓";background:var(--ok);border-color:var(--ok);color:var(--card);text-align:center;line-height:1rem;font-weight:700}
.checklist button[aria-pressed=true] span{text-decoration:line-through;color:var(--muted)}
.links li{margin:.4rem 0}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
input,select,textarea{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--fg)}
input[type=checkbox]{width:auto}
[aria-invalid=true]{border-color:var(--bad)}
.hint{color:var(--muted);font-size:.875rem;margin:.25rem 0 0}
.error{color:var(--bad);font-size:.9rem;margin:.25rem 0 0}
.button{display:inline-block;margin-top:1rem;padding:.65rem 1.1rem;min-height:44px;border:0;border-radius:8px;background:var(--accent);color:var(--accent-fg);font:inherit;font-weight:600;cursor:pointer}
.saved{color:var(--ok);font-weight:600}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}`;

/** The CSP source allowing exactly this stylesheet (`style-src 'sha256-…'`). */
export const PAGE_STYLESHEET_HASH = cspHash(PAGE_STYLESHEET);

/** A CSP hash source for an inline `<style>` or `<script>` body. */
export function cspHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
}
