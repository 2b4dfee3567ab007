import { say, textLanguageOf, type TextKey } from '../texts/texts.js';
import type { ToolContext } from './tool.js';

/** The most items one bulk change touches; more is refused (narrow it down). */
export const BULK_MAX_ITEMS = 500;
/** How many of them the question lists by name; the rest are behind a page link. */
const BULK_LISTED_ITEMS = 10;

/** Makes a page listing every item of a bulk change (its link goes in the question); absent: no link. */
export type BulkPage = (userId: string, timezone: string, title: string, lines: string[]) => Promise<string | undefined>;

/** The language of Herald's own words for a tool's question (ToolContext.language), English by default. */
export function toolLanguage(context: Pick<ToolContext, 'language'>) {
  return textLanguageOf(context.language) ?? 'en';
}

/**
 * The question one confirmation asks for a bulk change: the count and what changes, the
 * first {@link BULK_LISTED_ITEMS} by name, and a page link with all of them when there are more.
 */
export async function bulkQuestion(
  context: Pick<ToolContext, 'userId' | 'timezone' | 'language'>,
  key: Extract<TextKey, `bulk${string}`>,
  values: Record<string, string | number>,
  lines: string[],
  page: BulkPage | undefined,
  pageTitle: string,
): Promise<string> {
  const language = toolLanguage(context);
  const shown = lines.slice(0, BULK_LISTED_ITEMS).map((line) => `• ${line}`);
  if (lines.length > BULK_LISTED_ITEMS) {
    const link = page ? await page(context.userId, context.timezone, pageTitle, lines).catch(() => undefined) : undefined;
    const more = lines.length - BULK_LISTED_ITEMS;
    shown.push(link ? say(language, 'bulkMore', { count: more, link }) : `…+${more}`);
  }
  return say(language, key, { ...values, count: lines.length, items: shown.join('\n') });
}

/** The refusal for a change over {@link BULK_MAX_ITEMS} items. */
export function bulkTooMany(context: Pick<ToolContext, 'language'>, count: number): string {
  return say(toolLanguage(context), 'bulkTooMany', { count, max: BULK_MAX_ITEMS });
}
