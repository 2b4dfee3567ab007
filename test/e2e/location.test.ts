import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { CheckedScript } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';

/**
 * WhatsApp location pins: the planner reads one line (label, address, coordinates and the
 * time zone there, found offline with geo-tz); "set my time zone from here", or a pin in a
 * zone whose clock differs from the user's, gets Herald's own offer, confirmed by YES.
 */

const script = new CheckedScript();
const checked = script.checked.bind(script);
const PARIS = { Latitude: '48.8584', Longitude: '2.2945', Address: 'Champ de Mars, 75007 Paris', Label: 'Eiffel Tower' };
const BROOKLYN = { Latitude: '40.6782', Longitude: '-73.9442', Label: 'Home' };

describe('location pins', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let address: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    const phone = `+1929555${String(5000 + counter)}`;
    address = `whatsapp:${phone}`;
    userId = (await createUser(harness, phone, { timezone: 'America/New_York', channel: 'whatsapp', lastWhatsappInboundAt: new Date() })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  async function send(body: string, pin?: Record<string, string>, count = 1): Promise<string> {
    const response = await harness.inbound({ from: address, body, ...(pin ? { extra: pin } : {}) });
    expect(response.statusCode).toBe(200);
    const replies = await harness.repliesTo(address, count);
    script.rethrow();
    return replies[count - 1]!.body ?? '';
  }

  const user = () => harness.database.prisma.user.findUniqueOrThrow({ where: { id: userId } });

  it('"set my time zone from here" with a pin: Herald offers the zone there, without a model call; YES sets it', async () => {
    const reply = await send('set my time zone from here', PARIS);
    expect(reply).toMatch(/^This pin is in the Europe\/Paris time zone \(it is \d\d:\d\d there\)\. Make Europe\/Paris your time zone\? Reply YES or NO\.$/);
    expect(harness.anthropic.requests).toHaveLength(0);
    expect((await user()).timezone).toBe('America/New_York');
    expect(await send('YES', undefined, 2)).toBe('Your time zone is now Europe/Paris.');
    expect((await user()).timezone).toBe('Europe/Paris');
    // The pin is kept on its message only.
    const message = await harness.database.prisma.message.findFirstOrThrow({ where: { userId, role: 'user', content: 'set my time zone from here' } });
    expect(message.location).toEqual({ latitude: 48.8584, longitude: 2.2945, address: 'Champ de Mars, 75007 Paris', label: 'Eiffel Tower' });
  });

  it('a pin in the user\'s own zone reaches the planner as one line, and no offer is made', async () => {
    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.lastUserText()).toBe('any good coffee near here?\n\n(The user shared a location pin: "Home", 40.67820, -73.94420; time zone there: America/New_York.)');
        return { text: 'Try the corner café on Franklin Ave.' };
      }),
    );
    expect(await send('any good coffee near here?', BROOKLYN)).toBe('Try the corner café on Franklin Ave.');
    expect(await harness.database.prisma.pendingQuestion.count({ where: { userId } })).toBe(0);
  });

  it('a pin far from the user\'s zone: the model answers, and Herald offers the zone after its reply', async () => {
    harness.anthropic.enqueue({ text: 'Enjoy Paris! The tower is open until 11 PM.' });
    const reply = await send('how late is it open?', PARIS);
    expect(reply).toMatch(/^Enjoy Paris! The tower is open until 11 PM\.\n\nThis pin is in the Europe\/Paris time zone .* Make Europe\/Paris your time zone\? Reply YES or NO\.$/s);
    expect(await harness.database.prisma.pendingQuestion.count({ where: { userId, status: 'pending' } })).toBe(1);
  });

  it('a pin alone goes to the model; a malformed pin is dropped and the text still answered', async () => {
    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.lastUserText()).toContain('(The user shared a location pin: "Home"');
        return { text: 'Got your location. What would you like to know about it?' };
      }),
    );
    expect(await send('', BROOKLYN)).toBe('Got your location. What would you like to know about it?');

    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.lastUserText()).toBe('meet me here');
        return { text: 'Where exactly?' };
      }),
    );
    expect(await send('meet me here', { Latitude: 'north-ish', Longitude: '999' }, 2)).toBe('Where exactly?');
  });
});
