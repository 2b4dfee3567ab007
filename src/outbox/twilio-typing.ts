import { createTwilioClient, type TwilioClientOptions } from '../channels/twilio-request-client.js';

/** Sends WhatsApp's typing indicator for a message the user sent. */
export interface TypingApi {
  /** Marks the message read and shows "typing…" (up to 25 s, or until Herald's next message). Rejects on failure. */
  send(messageSid: string): Promise<void>;
}

/** Twilio's Messaging v2 `Indicators/Typing` through the official SDK (`messaging.v2.typingIndicator`). */
export class TwilioTypingApi implements TypingApi {
  private readonly client: ReturnType<typeof createTwilioClient>;

  constructor(options: TwilioClientOptions) {
    this.client = createTwilioClient(options);
  }

  async send(messageSid: string): Promise<void> {
    const result = await this.client.messaging.v2.typingIndicator.create({ channel: 'whatsapp', messageId: messageSid });
    if (!result.success) throw new Error('Twilio answered success: false to the typing indicator');
  }
}
