import { createTwilioClient, type TwilioClientOptions } from '../channels/twilio-request-client.js';
import type { Logger } from '../logging/logger.js';

/** `…/2010-04-01/Accounts/AC…/Messages/MM…/Media/ME…`, as Twilio's media URLs are. */
const MEDIA_PATH = /\/2010-04-01\/Accounts\/(AC[0-9a-fA-F]{32})\/Messages\/((?:MM|SM)[0-9a-zA-Z]{10,64})\/Media\/(ME[0-9a-zA-Z]{10,64})(?:\.json)?$/;

/** The message and media SIDs a Twilio media URL names, when it is one of this account's. */
function parseMediaUrl(url: string, accountSid: string): { messageSid: string; mediaSid: string } | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const match = MEDIA_PATH.exec(path);
  if (!match || match[1] !== accountSid) return undefined;
  return { messageSid: match[2]!, mediaSid: match[3]! };
}

/**
 * Deletes an attachment from Twilio once Herald has read it (TWILIO_DELETE_MEDIA), with
 * Twilio's Media DELETE through the official SDK. One attempt: a failure is logged and left
 * (Twilio keeps the media until it is deleted in its console), never retried in a loop.
 */
export class TwilioMediaDeleter {
  private readonly client: ReturnType<typeof createTwilioClient>;

  constructor(
    private readonly options: TwilioClientOptions,
    private readonly logger: Logger,
  ) {
    this.client = createTwilioClient(options);
  }

  /** True when Twilio deleted it (or it was already gone). */
  async delete(url: string): Promise<boolean> {
    const sids = parseMediaUrl(url, this.options.accountSid);
    if (!sids) {
      this.logger.warn('media URL names no media of this account; not deleted');
      return false;
    }
    try {
      await this.client.api.v2010.accounts(this.options.accountSid).messages(sids.messageSid).media(sids.mediaSid).remove();
      return true;
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (status === 404) return true;
      this.logger.warn({ mediaSid: sids.mediaSid, status, error: error instanceof Error ? error.message : String(error) }, 'could not delete media from Twilio; left there');
      return false;
    }
  }
}
