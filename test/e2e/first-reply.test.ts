import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';

describe('a text comes in, a reply goes out', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  // Each test scripts its own model calls and reads its own requests.
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('answers an SMS through Twilio with what the model said, and records everything', async () => {
    harness.anthropic.enqueue({ text: 'Hello! I am **Herald**. What should I call you?' });
    const response = await harness.inbound({ from: '+447400123456', body: 'hi there' });

    expect(response.body).toContain('<Response');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/xml/);
    expect(response.body).toContain('<Response');

    const [sent] = await harness.repliesTo('+447400123456', 1);
    expect(sent).toMatchObject({ to: '+447400123456', from: '+15005550006', body: 'Hello! I am Herald. What should I call you?' });
    expect(sent?.statusCallback).toBe('https://herald.test/twilio/status');

    const request = harness.anthropic.requests[0]!;
    expect(request.lastUserText()).toBe('hi there');
    expect(request.systemText()).toContain('Europe/London');
  });
});
