import { html, trustedHtml, type SafeHtml } from './html.js';
import { cspHash, PAGE_STYLESHEET, PAGE_STYLESHEET_HASH } from './page-styles.js';

/** A whole HTML document and the Content-Security-Policy that must be sent with it. */
export interface RenderedDocument {
  html: string;
  contentSecurityPolicy: string;
}

/** What goes into the document shell. */
export interface DocumentOptions {
  title: string;
  /** BCP 47; right-to-left languages get dir="rtl". Default en. */
  language?: string | undefined;
  body: SafeHtml;
  /** Extra inline stylesheets and scripts (constants only): each is allowed by its hash. */
  styles?: readonly string[];
  scripts?: readonly string[];
}

const RIGHT_TO_LEFT = new Set(['ar', 'he', 'fa', 'ur', 'yi', 'ps', 'sd', 'ug', 'dv']);
const hashes = new Map<string, string>();

function hashOf(source: string): string {
  let hash = hashes.get(source);
  if (!hash) {
    hash = cspHash(source);
    hashes.set(source, hash);
  }
  return hash;
}

/**
 * The shell every Herald document shares: one look (the shared stylesheet), never
 * indexed, no referrer sent, and a strict CSP allowing only the inline style and script
 * blocks written here, by hash. Nothing is loaded from anywhere else; with no scripts
 * given, no script runs at all (an injected one included).
 */
export function renderDocument(options: DocumentOptions): RenderedDocument {
  const language = options.language ?? 'en';
  const direction = RIGHT_TO_LEFT.has(language.split('-')[0]!.toLowerCase()) ? 'rtl' : 'ltr';
  const styles = [PAGE_STYLESHEET, ...(options.styles ?? [])];
  const scripts = options.scripts ?? [];
  const document = html`<!doctype html>
<html lang="${language}" dir="${direction}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${options.title}</title>
${styles.map((style) => html`<style>${trustedHtml(style)}</style>`)}</head>
<body>${options.body}${scripts.map((script) => html`<script>${trustedHtml(script)}</script>`)}</body></html>`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `style-src ${[PAGE_STYLESHEET_HASH, ...styles.slice(1).map(hashOf)].join(' ')}`,
    `script-src ${scripts.length > 0 ? scripts.map(hashOf).join(' ') : "'none'"}`,
    ...(scripts.length > 0 ? ["connect-src 'self'"] : []),
    'img-src data:',
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html: document.value, contentSecurityPolicy };
}
