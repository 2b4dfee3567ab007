import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fallbackReply } from '../../src/texts/fallback-replies.js';
import { NO_TEXT_PLACEHOLDER } from '../../src/orchestrator/prompts/conversation-messages.js';
import type { RecordedAnthropicRequest } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioMediaStore } from '../fakes/twilio/media-store.js';
import { HERALD_WHATSAPP_NUMBER, HeraldHarness } from '../helpers/herald-harness.js';
import { heicFile, mediaFields, pdf, photo } from '../helpers/media-fixtures.js';
import { CheckedScript, lastToolResults } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';

/**
 * Photos and PDFs end to end: a signed webhook names Twilio media URLs (served by the fake
 * Twilio, redirecting to its media store on another origin); the turn downloads them,
 * downscales photos with sharp, and the planner and the step it hands an attachment to see
 * them as image and document blocks, against the fake Anthropic API that checks them as the
 * real one does. Only metadata is stored; the media is deleted from Twilio after the reply.
 */

const ZONE = 'America/New_York';
const LOCAL = "yyyy-MM-dd'T'HH:mm";
const script = new CheckedScript();
const checked = script.checked.bind(script);

/** The Messages API refuses any message with empty (or whitespace-only) content. */
function expectNoEmptyContent(request: RecordedAnthropicRequest): void {
  const messages = request.body.messages ?? [];
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    expect(text.trim(), `a ${message.role} message is empty`).not.toBe('');
    if (Array.isArray(message.content)) expect(message.content.length).toBeGreaterThan(0);
  }
}

describe('media: photos and PDFs reach Claude', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1312555${String(1000 + counter)}`;
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const media = () => harness.twilio.media;

  /** Sends a message with attachments, as Twilio posts one. */
  async function sendWithMedia(from: string, body: string, attachments: Array<{ url: string; type: string }>) {
    const response = await harness.inbound({ from, body, numMedia: attachments.length, extra: mediaFields(attachments) });
    expect(response.statusCode).toBe(200);
  }

  async function replyTo(from: string, count = 1): Promise<string> {
    const replies = await harness.repliesTo(from, count);
    script.rethrow();
    return replies[count - 1]!.body ?? '';
  }

  it('an invitation photo + "add this to my calendar": the planner sees the downscaled photo, hands it to calendar-agent, and the event is created', async () => {
    const original = await photo(4032, 3024, 80);
    const url = media().add(original, 'image/jpeg');
    const start = DateTime.now().setZone(ZONE).plus({ days: 10 }).set({ hour: 18, minute: 0 });
    harness.anthropic.enqueue(
      checked((request) => {
        const [image] = request.mediaBlocks();
        expect(image).toMatchObject({ type: 'image', mediaType: 'image/jpeg' });
        expect(request.lastUserText()).toContain('Attachment a1 (photo):');
        expect(request.lastUserText()).toContain('add this to my calendar');
        return {
          toolCalls: [
            {
              name: 'create_plan',
              input: {
                analysis: 'A wedding invitation',
                goal: 'Add the wedding to the calendar',
                steps: [{ id: 'step_1', agent: 'calendar-agent', task: `Create "Maya & Tom's wedding" on ${start.toFormat(LOCAL)}, at the Grand Hall (from the invitation in the photo).`, attachments: ['a1'] }],
              },
            },
          ],
        };
      }),
      checked((request) => {
        // The step's agent sees the attachment it was given, and nothing of the conversation.
        expect(request.mediaBlocks().map((block) => block.type)).toEqual(['image']);
        return { toolCalls: [{ name: 'create_calendar_event', input: { title: "Maya & Tom's wedding", start: start.toFormat(LOCAL), location: 'Grand Hall' } }] };
      }),
      checked((request) => {
        expect(lastToolResults(request)[0]?.isError).toBe(false);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Created', reply: "Added Maya & Tom's wedding to your calendar.", created: [{ description: 'wedding' }] } }] };
      }),
    );
    await sendWithMedia(phone, 'add this to my calendar', [{ url, type: 'image/jpeg' }]);
    expect(await replyTo(phone)).toBe("Added Maya & Tom's wedding to your calendar.");

    const events = await harness.database.prisma.calendarEvent.findMany({ where: { userId } });
    expect(events.map((event) => event.title)).toEqual(["Maya & Tom's wedding"]);
    // Downscaled: the long edge at most 1568 px, a fraction of the original's bytes.
    const sent = harness.anthropic.requests[0]!.mediaBlocks()[0]!;
    const metadata = await sharp(sent.bytes).metadata();
    expect(Math.max(metadata.width!, metadata.height!)).toBe(1568);
    expect(sent.bytes.length).toBeLessThan(original.length / 3);

    // Metadata only: the real type, size and SHA-256 of what Twilio served; never the bytes.
    const row = await harness.database.prisma.messageMedia.findFirstOrThrow({ where: { message: { userId } } });
    expect(row).toMatchObject({ status: 'ready', contentType: 'image/jpeg', sizeBytes: original.length, sha256: createHash('sha256').update(original).digest('hex'), declaredType: 'image/jpeg' });
    expect(Object.values(row).some((value) => Buffer.isBuffer(value))).toBe(false);
    // Credentials went to Twilio's API only; the media store got a signed URL and no Authorization.
    const requests = media().requests.filter((request) => request.method === 'GET');
    expect(requests.map((request) => [request.origin, request.authorization])).toEqual([
      ['api', `Basic ${harness.twilio.accountSid}`],
      ['store', undefined],
    ]);
    // Deleted from Twilio once the reply was committed.
    await expect.poll(() => media().deleted).toEqual([FakeTwilioMediaStore.sidOf(url)]);
    await expect.poll(async () => (await harness.database.prisma.messageMedia.findFirstOrThrow({ where: { id: row.id } })).deletedAt).not.toBeNull();
  });

  it('a receipt photo + "add these to my shopping list": the list-agent gets the photo and adds the items', async () => {
    const url = media().add(await photo(1200, 1600), 'image/jpeg');
    harness.anthropic.enqueue(
      {
        toolCalls: [
          {
            name: 'create_plan',
            input: { analysis: 'A receipt', goal: 'Add the items to the shopping list', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Add the items on the receipt to the shopping list: milk, eggs, bread', attachments: ['a1'] }] },
          },
        ],
      },
      checked((request) => {
        expect(request.mediaBlocks()).toHaveLength(1);
        return { toolCalls: [{ name: 'add_list_items', input: { list: 'shopping', items: ['milk', 'eggs', 'bread'] } }] };
      }),
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Added 3 items', reply: 'Added milk, eggs and bread to your shopping list.', created: [{ description: 'milk' }, { description: 'eggs' }, { description: 'bread' }] } }] },
    );
    await sendWithMedia(phone, 'add these to my shopping list', [{ url, type: 'image/jpeg' }]);
    expect(await replyTo(phone)).toBe('Added milk, eggs and bread to your shopping list.');
    const items = await harness.database.prisma.listItem.findMany({ where: { list: { userId } }, orderBy: { position: 'asc' } });
    expect(items.map((item) => item.text)).toEqual(['milk', 'eggs', 'bread']);
  });

  it('a PDF schedule + "remind me of each deadline": a document block, and one reminder per deadline', async () => {
    const day = DateTime.now().setZone(ZONE).plus({ days: 20 }).startOf('day');
    const deadlines = [day.set({ hour: 9 }), day.plus({ days: 7 }).set({ hour: 9 })];
    const schedule = await pdf([`Course schedule\nEssay due ${deadlines[0]!.toISODate()}\nExam ${deadlines[1]!.toISODate()}`, 'Page two: reading list']);
    const url = media().add(schedule, 'application/pdf');
    harness.anthropic.enqueue(
      checked((request) => {
        const [document] = request.mediaBlocks();
        expect(document).toMatchObject({ type: 'document', mediaType: 'application/pdf' });
        expect(document!.bytes.equals(schedule)).toBe(true);
        expect(request.lastUserText()).toContain('Attachment a1 (PDF, 2 pages):');
        return {
          toolCalls: [
            {
              name: 'create_plan',
              input: { analysis: 'Two deadlines', goal: 'Remind of each deadline', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Remind the user of "Essay due" at ${deadlines[0]!.toFormat(LOCAL)} and of "Exam" at ${deadlines[1]!.toFormat(LOCAL)}`, attachments: ['a1'] }] },
            },
          ],
        };
      }),
      {
        toolCalls: [
          { name: 'create_scheduled_job', input: { text: 'Essay due', at: deadlines[0]!.toFormat("yyyy-MM-dd'T'HH:mm:ss") } },
          { name: 'create_scheduled_job', input: { text: 'Exam', at: deadlines[1]!.toFormat("yyyy-MM-dd'T'HH:mm:ss") } },
        ],
      },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Two reminders', reply: "I'll remind you of the essay and the exam.", created: [{ description: 'Essay due' }, { description: 'Exam' }] } }] },
    );
    await sendWithMedia(phone, 'remind me of each deadline', [{ url, type: 'application/pdf' }]);
    expect(await replyTo(phone)).toBe("I'll remind you of the essay and the exam.");
    const reminders = await harness.database.prisma.reminder.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
    expect(reminders.map((reminder) => reminder.text)).toEqual(['Essay due', 'Exam']);
  });

  it('several photos with one text: each an image block, in order, and the reply may quote what was read', async () => {
    const urls = [media().add(await photo(800, 600), 'image/jpeg'), media().add(await photo(600, 800), 'image/png'), media().add(await photo(500, 500), 'image/jpeg')];
    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.mediaBlocks().map((block) => block.type)).toEqual(['image', 'image', 'image']);
        expect(request.lastUserText()).toMatch(/Attachment a1 \(photo\):[\s\S]*Attachment a2 \(photo\):[\s\S]*Attachment a3 \(photo\):[\s\S]*which one is cheapest/);
        return { text: 'The second one says $12, the cheapest of the three.' };
      }),
    );
    await sendWithMedia(phone, 'which one is cheapest?', urls.map((url) => ({ url, type: 'image/jpeg' })));
    expect(await replyTo(phone)).toBe('The second one says $12, the cheapest of the three.');
  });

  it('a photo with no caption goes to the model, which can say what it sees', async () => {
    const url = media().add(await photo(640, 480), 'image/jpeg');
    harness.anthropic.enqueue(
      checked((request) => {
        expectNoEmptyContent(request);
        expect(request.lastUserText()).toContain('with no text');
        return { text: 'Nice sunset! Want me to do anything with it?' };
      }),
    );
    await sendWithMedia(phone, '', [{ url, type: 'image/jpeg' }]);
    expect(await replyTo(phone)).toBe('Nice sunset! Want me to do anything with it?');
  });

  it('a HEIC photo sent as a file gets "send it as a photo", without a model call', async () => {
    const url = media().add(heicFile(), 'image/heic');
    await sendWithMedia(phone, '', [{ url, type: 'image/heic' }]);
    expect(await replyTo(phone)).toBe("I can't open your photo (HEIC). Please send it as a photo, not a file.");
    expect(harness.anthropic.requests).toHaveLength(0);
    const row = await harness.database.prisma.messageMedia.findFirstOrThrow({ where: { message: { userId } } });
    expect(row).toMatchObject({ status: 'refused', problem: 'photo_file', contentType: 'image/heic' });
  });

  it('a HEIC with text: the model answers the text and knows about the file; Herald adds its own line', async () => {
    const url = media().add(heicFile(), 'image/heic');
    harness.anthropic.enqueue(
      checked((request) => {
        expect(request.lastUserText()).toMatch(/Attachment 1 \(sent as image\/heic\) was not read/);
        expect(request.mediaBlocks()).toHaveLength(0);
        return { text: 'Sure, I can help with the menu.' };
      }),
    );
    await sendWithMedia(phone, 'what do you think of this menu?', [{ url, type: 'image/heic' }]);
    expect(await replyTo(phone)).toBe("Sure, I can help with the menu.\n\nI can't open your photo (HEIC). Please send it as a photo, not a file.");
  });

  it('a photo sent while a YES question is pending is a new turn; the question stays pending', async () => {
    await harness.database.prisma.pendingQuestion.create({
      data: {
        shortId: 'dentist1',
        userId,
        kind: 'confirmation',
        channel: 'sms',
        payload: { actions: [{ agent: 'calendar-agent', tool: 'delete_calendar_event', input: { query: 'Dentist' }, question: 'Delete "Dentist"?', done: 'Deleted.' }] },
        question: 'Delete "Dentist"?',
        expiresAt: new Date(Date.now() + 5 * 60_000),
      },
    });
    const url = media().add(await photo(400, 300), 'image/jpeg');
    harness.anthropic.enqueue({ text: 'That looks like a parking sign.' });
    await sendWithMedia(phone, '', [{ url, type: 'image/jpeg' }]);
    expect(await replyTo(phone)).toBe('That looks like a parking sign.');
    const pending = await harness.database.prisma.pendingQuestion.findMany({ where: { userId } });
    expect(pending.map((row) => row.status)).toEqual(['pending']);
  });

  it('keeps working after an attachment-only message: the next request has no empty message, and the photo is not kept', async () => {
    const url = media().add(await photo(400, 300), 'image/jpeg');
    harness.anthropic.enqueue({ text: 'A cat!' });
    await sendWithMedia(phone, '', [{ url, type: 'image/jpeg' }]);
    await replyTo(phone);

    harness.anthropic.enqueue({ text: 'Lovely.' });
    await harness.inbound({ from: phone, body: 'it was a photo of my cat' });
    expect(await replyTo(phone, 2)).toBe('Lovely.');
    const request = harness.anthropic.requests[1]!;
    expectNoEmptyContent(request);
    const messages = request.body.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[0]?.content).toBe(NO_TEXT_PLACEHOLDER);
    expect(request.mediaBlocks()).toHaveLength(0);
    expect(messages[2]?.content).toBe('it was a photo of my cat');
  });

  it('answers an empty SMS without calling the model', async () => {
    await harness.inbound({ from: phone, body: '   ' });
    expect(await replyTo(phone)).toBe(fallbackReply('empty', 'en'));
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('WhatsApp photos work the same, answered on WhatsApp', async () => {
    const address = 'whatsapp:+13125559901';
    const url = media().add(await photo(500, 400), 'image/jpeg');
    harness.anthropic.enqueue({ text: 'Got your photo.' });
    await sendWithMedia(address, 'look', [{ url, type: 'image/jpeg' }]);
    const [reply] = await harness.repliesTo(address, 1);
    expect(reply).toMatchObject({ from: HERALD_WHATSAPP_NUMBER, body: 'Got your photo.' });
  });
});
