import type { Channel } from '../generated/prisma/client.js';
import { fitsOneMessage } from '../channels/message-fit.js';
import { leadThatFits } from '../channels/reply-lead.js';
import { splitMessage } from '../channels/split-message.js';
import type { Logger } from '../logging/logger.js';
import type { PageService } from '../pages/page-service.js';
import { say, type TextLanguage } from '../texts/texts.js';

/** A text section holds at most this much Markdown (page-spec.ts); a longer answer spans several. */
const SECTION_MARKDOWN = 20_000;

/** Who the reply is for and how it travels. */
export interface LongReplyTarget {
  userId: string;
  timezone: string;
  /** The reader's language: the link's line is written in it. */
  language: TextLanguage;
  channel: Channel;
}

/**
 * Long answers arrive whole: a reply longer than one message may carry on its channel
 * (SMS_MAX_SEGMENTS segments, or WhatsApp's 1,600 characters) is stored whole as a page (the
 * same expiry, safety and rendering as the pages ui-agent makes, paragraphs and lists kept)
 * and the text becomes its lead, cut at a sentence boundary, then the link. A reply ending
 * with a question that must be answered by text (a confirmation) keeps that question last.
 */
export class LongReplies {
  constructor(
    private readonly pages: Pick<PageService, 'create'>,
    private readonly smsMaxSegments: number,
    private readonly logger: Logger,
  ) {}

  /** The reply as it can be sent: itself when it fits, else its lead and a link to all of it. */
  async fit(reply: string, target: LongReplyTarget, keepLast?: string): Promise<string> {
    const fits = (text: string) => fitsOneMessage(text, target.channel, this.smsMaxSegments);
    if (fits(reply)) return reply;
    const created = await this.pages.create(target.userId, target.timezone, {
      title: pageTitle(reply) ?? say(target.language, 'longReplyTitle'),
      language: target.language,
      sections: splitMessage(reply, SECTION_MARKDOWN).map((markdown) => ({ kind: 'text' as const, markdown })),
    });
    if (!created.ok) {
      // Nothing expected fails here (a text page binds to nothing); the outbox still caps the text.
      this.logger.error({ error: created.error }, 'could not store a long answer as a page; sending it cut');
      return reply;
    }
    const { link } = created.value;
    const tail = keepLast && reply.endsWith(keepLast) ? keepLast : undefined;
    const body = tail ? reply.slice(0, reply.length - tail.length) : reply;
    const message = (lead: string) => [lead ? `${lead}\n\n${say(target.language, 'longReplyWhole', { link })}` : say(target.language, 'longReplyOnly', { link }), tail].filter(Boolean).join('\n\n');
    const lead = leadThatFits(body, (candidate) => fits(message(candidate)));
    this.logger.info({ channel: target.channel, characters: reply.length, leadCharacters: lead.length }, 'long answer sent as a lead and a page');
    return message(lead);
  }
}

/** The answer's first line as a title (Markdown markers dropped, cut at a word within 80 characters), if it has one. */
function pageTitle(markdown: string): string | undefined {
  const first = markdown
    .split('\n')
    .map((line) => line.replace(/^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '').replace(/[*_~`]/g, '').trim())
    .find((line) => line.length > 0);
  if (!first) return undefined;
  if (/^https?:\/\/\S+$/.test(first)) return undefined;
  if (first.length <= 80) return first;
  const cut = first.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  return `${space > 40 ? cut.slice(0, space) : cut}…`;
}
