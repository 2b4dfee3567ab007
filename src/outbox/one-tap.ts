import { CHANNEL_LIMITS, CONTENT_BODY_MAX_CHARS } from '../channels/channel-limits.js';
import { formatForChannel } from '../channels/format-message.js';
import type { ChannelName } from '../channels/phone-number.js';
import type { Logger } from '../logging/logger.js';
import { buttonPayload } from '../questions/button-payload.js';
import type { QuestionAsk } from '../questions/pending-question.js';
import { describeError } from '../shared/errors.js';
import { say, type TextLanguage } from '../texts/texts.js';
import type { ContentShape, ContentShapes } from './content-shapes.js';

/** A reply sent as a content with buttons: the content and its variables. */
export interface ButtonTemplate {
  contentSid: string;
  variables: Record<string, string>;
}

/** Content API limits (twilio/quick-reply, twilio/list-picker). */
const BUTTON_TITLE_MAX = 20;
const LIST_ITEM_MAX = 24;
const LIST_DESCRIPTION_MAX = 72;

/**
 * The one shape of YES/NO buttons: body, two titles and two payloads are variables, so one
 * content serves every question in every language. `twilio/text` is what an SMS fallback
 * (RCS through a Messaging Service) shows: the same body, typed answers still work.
 */
export const CONFIRM_SHAPE: ContentShape = {
  name: 'herald-confirm-v1',
  definition: {
    friendly_name: 'herald_confirm_v1',
    language: 'en',
    variables: { '1': 'Confirm?', '2': 'Yes', '3': 'herald:aaaaaaaa:yes', '4': 'No', '5': 'herald:aaaaaaaa:no' },
    types: {
      'twilio/quick-reply': { body: '{{1}}', actions: [{ title: '{{2}}', id: '{{3}}' }, { title: '{{4}}', id: '{{5}}' }] },
      'twilio/text': { body: '{{1}}' },
    },
  },
};

/** A list picker of `count` items (1-10): body, button title, each item's title, description and payload are variables. */
export function listShape(count: number): ContentShape {
  const variables: Record<string, string> = { '1': 'Which one?', '2': 'Choose' };
  const items = Array.from({ length: count }, (_, index) => {
    const base = 3 + index * 3;
    variables[String(base)] = `${index + 1}) item`;
    variables[String(base + 1)] = `item ${index + 1}`;
    variables[String(base + 2)] = buttonPayload('aaaaaaaa', String(index + 1));
    return { item: `{{${base}}}`, description: `{{${base + 1}}}`, id: `{{${base + 2}}}` };
  });
  return {
    name: `herald-list-v1-${count}`,
    definition: {
      friendly_name: `herald_list_v1_${count}`,
      language: 'en',
      variables,
      types: { 'twilio/list-picker': { body: '{{1}}', button: '{{2}}', items }, 'twilio/text': { body: '{{1}}' } },
    },
  };
}

/**
 * Confirmations and choices as buttons where the channel has them (docs: README "One-tap
 * answers"): YES/NO quick replies for a confirmation (and a "Did you mean …?"), a list picker
 * for a choice of up to 10, numbered as the text form is. Anything else, a reply too long for
 * a content's body, or a Content API that fails, keeps the text form (logged, never thrown).
 */
export class OneTap {
  constructor(
    private readonly shapes: ContentShapes,
    private readonly logger: Logger,
  ) {}

  /** Whether a reply on `channel` may carry buttons: RCS always, WhatsApp inside the 24-hour window. */
  static available(channel: ChannelName, whatsappWindowOpen: boolean): boolean {
    return CHANNEL_LIMITS[channel].buttons && (channel !== 'whatsapp' || whatsappWindowOpen);
  }

  /**
   * The reply as a content with buttons for the first confirmation or choice it asks, or
   * undefined for the text form.
   */
  async template(input: { channel: ChannelName; reply: string; asks: QuestionAsk[]; shortIds: string[]; language: TextLanguage }): Promise<ButtonTemplate | undefined> {
    const index = input.asks.findIndex((ask) => ask.kind === 'confirmation' || ask.kind === 'choice');
    const ask = input.asks[index];
    const shortId = input.shortIds[index];
    if (!ask || !shortId) return undefined;
    const body = formatForChannel(input.reply, input.channel).trim();
    if (body.length === 0 || body.length > CONTENT_BODY_MAX_CHARS) return undefined;
    const planned = plan(ask, shortId, body, input.language, CHANNEL_LIMITS[input.channel].maxListItems);
    if (!planned) return undefined;
    try {
      const contentSid = await this.shapes.sidFor(planned.shape);
      return { contentSid, variables: planned.variables };
    } catch (error) {
      this.logger.warn({ shape: planned.shape.name, error: describeError(error) }, 'Content API failed; the question goes out as text');
      return undefined;
    }
  }
}

/** The shape and variables for one question, or undefined when it has no button form. */
function plan(ask: QuestionAsk, shortId: string, body: string, language: TextLanguage, maxItems: number): { shape: ContentShape; variables: Record<string, string> } | undefined {
  const yesNo = () => ({
    shape: CONFIRM_SHAPE,
    variables: {
      '1': body,
      '2': clip(say(language, 'buttonYes'), BUTTON_TITLE_MAX),
      '3': buttonPayload(shortId, 'yes'),
      '4': clip(say(language, 'buttonNo'), BUTTON_TITLE_MAX),
      '5': buttonPayload(shortId, 'no'),
    },
  });
  if (ask.kind === 'confirmation') return yesNo();
  if (ask.kind !== 'choice') return undefined;
  if (ask.payload.weak) return yesNo();
  const candidates = ask.payload.candidates;
  if (candidates.length < 1 || candidates.length > maxItems) return undefined;
  const variables: Record<string, string> = { '1': body, '2': clip(say(language, 'buttonChoose'), BUTTON_TITLE_MAX) };
  candidates.forEach((candidate, index) => {
    const base = 3 + index * 3;
    variables[String(base)] = clip(`${index + 1}) ${candidate.label}`, LIST_ITEM_MAX);
    variables[String(base + 1)] = clip(candidate.label, LIST_DESCRIPTION_MAX);
    variables[String(base + 2)] = buttonPayload(shortId, String(index + 1));
  });
  return { shape: listShape(candidates.length), variables };
}

/** At most `max` characters (whole code points), "…" marking a cut. */
function clip(text: string, max: number): string {
  const characters = [...text.replace(/\s+/g, ' ').trim()];
  return characters.length <= max ? characters.join('') : `${characters.slice(0, max - 1).join('')}…`;
}
