import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import { createUser } from '../reminders/support.js';
import { HeraldHarness, type HarnessOptions } from './herald-harness.js';

/** A test file's Herald and, per test, a fresh user who texts it. */
export interface TextingUser {
  readonly harness: HeraldHarness;
  readonly phone: string;
  readonly userId: string;
  /** Texts Herald (SMS from the user's number unless `from` says otherwise) and returns its next message to that address. */
  send(body: string, options?: { from?: string; extra?: Record<string, string> }): Promise<string>;
}

/**
 * The set-up the conversation tests share: one harness for the file (real Postgres, the
 * fake Twilio and Anthropic servers), reset before each test, with a new user each time
 * (phones `+1415555<first + n>`) and the fake clock back at `startAt`.
 */
export function textingUser(options: { clock: ManualClock; startAt: string; firstPhone: number; timezone?: string; harness?: HarnessOptions }): TextingUser {
  let harness: HeraldHarness | undefined;
  let phone = '';
  let userId = '';
  let counter = 0;
  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock: options.clock, ...options.harness });
  });
  beforeEach(async () => {
    harness!.anthropic.reset();
    harness!.twilio.reset();
    options.clock.set(options.startAt);
    counter += 1;
    phone = `+1415555${String(options.firstPhone + counter)}`;
    userId = (await createUser(harness!, phone, options.timezone ? { timezone: options.timezone } : {})).id;
  });
  afterAll(async () => {
    await harness?.close();
  });
  return {
    get harness() {
      return harness!;
    },
    get phone() {
      return phone;
    },
    get userId() {
      return userId;
    },
    async send(body, { from = phone, extra = {} } = {}) {
      const before = harness!.twilio.messages.filter((message) => message.to === from).length;
      expect((await harness!.inbound({ from, body, extra })).statusCode).toBe(200);
      return (await harness!.repliesTo(from, before + 1))[before]!.body ?? '';
    },
  };
}
