import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { ServerToolSpec, WebSource } from '../model/model-client.js';
import { publicHostName } from '../net/public-host-name.js';
import { trimEndOf } from '../shared/text-ends.js';

/** Searches one planning round or step may make (the turn as a whole is held to the same by TurnBudget). */
const WEB_SEARCH_MAX_USES = 3;
/** Pages one call may fetch. */
const WEB_FETCH_MAX_USES = 2;

/** The web tools a turn may offer: search always (unless WEB_SEARCH=off), fetch only for links the user wrote. */
export interface WebAccess {
  search?: Extract<ServerToolSpec, { type: 'web_search' }>;
  fetch?: Extract<ServerToolSpec, { type: 'web_fetch' }>;
}

/** http(s) links, and bare www. ones, as people paste them into a text. */
const LINK = /\b(?:https?:\/\/|www\.)[^\s<>"'()]+/gi;

/**
 * The hosts of the links in a text, each once: DNS names of the public internet only (src/net's
 * `publicHostName`), never an address in any spelling, `localhost`, a single label or a
 * reserved name (`.local`, `.internal`, `.test`…), which web fetch must never be pointed at.
 */
export function linkHosts(text: string): string[] {
  const hosts: string[] = [];
  for (const match of text.matchAll(LINK)) {
    // The sentence's own punctuation after a pasted link ("see https://x.org/a.").
    const raw = trimEndOf(match[0], '.,;:!?');
    let hostname: string;
    try {
      hostname = new URL(raw.startsWith('www.') ? `https://${raw}` : raw).hostname;
    } catch {
      continue; // Not a URL after all.
    }
    const host = publicHostName(hostname);
    if (host && !hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

/**
 * The web tools for this turn. Search is localised by the user's time zone and country.
 * Fetch is offered only when the user's own message has a link, and only for that link's
 * host (and, on the API side, only URLs from the user's words): no search hit, email or
 * tool result can make Herald open a page.
 */
export function webAccessFor(context: OrchestratorContext, enabled: boolean): WebAccess {
  if (!enabled) return {};
  const hosts = linkHosts(context.message.text);
  return {
    search: {
      type: 'web_search',
      maxUses: WEB_SEARCH_MAX_USES,
      userLocation: { timezone: context.user.timezone, ...(context.user.country ? { country: context.user.country } : {}) },
    },
    ...(hosts.length > 0 ? { fetch: { type: 'web_fetch', maxUses: WEB_FETCH_MAX_USES, allowedDomains: hosts } } : {}),
  };
}

/**
 * The server tools one call gets. After untrusted outside text (mail) has entered the
 * prompt, fetch is withheld: a link in an email must never be opened on its say-so.
 */
export function serverToolsFor(web: WebAccess | undefined, options: { untrustedTextSeen: boolean }): ServerToolSpec[] | undefined {
  if (!web) return undefined;
  const tools: ServerToolSpec[] = [];
  if (web.search) tools.push(web.search);
  if (web.fetch && !options.untrustedTextSeen) tools.push(web.fetch);
  return tools.length > 0 ? tools : undefined;
}

/** A link short enough for a text: no query or fragment, and only the site when the path is long. */
function shortLink(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
    const path = parsed.pathname === '/' ? '' : parsed.pathname;
    const link = `${parsed.origin}${path}`;
    return link.length <= 90 ? link : parsed.origin;
  } catch {
    return undefined;
  }
}

/**
 * The reply with at most one source: the first page the model cited, as a short link on a
 * line of its own, unless the reply already names that site.
 */
export function withSourceLink(reply: string, sources: readonly WebSource[]): string {
  const first = sources[0];
  if (!first) return reply;
  const link = shortLink(first.url);
  if (!link) return reply;
  const host = new URL(link).hostname.replace(/^www\./, '');
  if (reply.toLowerCase().includes(host.toLowerCase())) return reply;
  return `${reply}\n\nSource: ${link}`;
}
