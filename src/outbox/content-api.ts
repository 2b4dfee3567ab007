import type { ContentCreateRequest } from 'twilio/lib/rest/content/v1/content.js';
import { createTwilioClient, type TwilioClientOptions } from '../channels/twilio-request-client.js';

/**
 * A Content API content as Twilio's wire format has it (`POST content.twilio.com/v1/Content`,
 * JSON): `friendly_name`, `language`, default `variables`, and `types` keyed by Twilio's type
 * names (`twilio/quick-reply`, `twilio/list-picker`, `twilio/text`).
 */
export interface ContentDefinition {
  friendly_name: string;
  language: string;
  variables: Record<string, string>;
  types: {
    'twilio/text'?: { body: string };
    'twilio/quick-reply'?: { body: string; actions: Array<{ title: string; id: string }> };
    'twilio/list-picker'?: { body: string; button: string; items: Array<{ item: string; id: string; description?: string }> };
  };
}

/** Makes contents through Twilio's Content API; resolves with the content's SID (HX…). */
export interface ContentApi {
  create(definition: ContentDefinition): Promise<string>;
}

/** The Content API through the official SDK. */
export class TwilioContentApi implements ContentApi {
  private readonly client: ReturnType<typeof createTwilioClient>;

  constructor(options: TwilioClientOptions) {
    this.client = createTwilioClient(options);
  }

  async create(definition: ContentDefinition): Promise<string> {
    // The SDK posts the object it is given as the JSON body, unchanged; its typings name the
    // fields in camelCase (friendlyName, twilioQuickReply) but the API reads Twilio's own
    // names, so the wire shape is what goes in.
    const created = await this.client.content.v1.contents.create(definition as unknown as ContentCreateRequest);
    return created.sid;
  }
}
