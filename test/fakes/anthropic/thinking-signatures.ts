import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A thinking block as the API sends it. */
export interface SignedThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** A redacted thinking block as the API sends it. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * Signs thinking blocks as the API does (an opaque signature over the text) and checks
 * blocks handed back: a block whose text or signature was changed is refused, as the
 * real API refuses it.
 */
export class ThinkingSigner {
  private readonly secret = randomBytes(32);

  /** A signed thinking block with this text. */
  thinking(text: string): SignedThinkingBlock {
    return { type: 'thinking', thinking: text, signature: this.sign(`thinking:${text}`) };
  }

  /** An opaque redacted block. */
  redacted(): RedactedThinkingBlock {
    const payload = randomBytes(24).toString('base64');
    return { type: 'redacted_thinking', data: `${payload}.${this.sign(`redacted:${payload}`)}` };
  }

  /** Whether a block handed back is exactly one this fake issued. */
  isGenuine(block: Record<string, unknown>): boolean {
    if (block.type === 'thinking') {
      return typeof block.thinking === 'string' && typeof block.signature === 'string' && this.matches(`thinking:${block.thinking}`, block.signature);
    }
    if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      const [payload, signature] = block.data.split('.');
      return payload !== undefined && signature !== undefined && this.matches(`redacted:${payload}`, signature);
    }
    return false;
  }

  private sign(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64');
  }

  private matches(text: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(text));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
