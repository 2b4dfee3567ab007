import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeTranscriptionServer } from '../fakes/fake-transcription-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { amrVoiceNote, longVoiceNote, voiceNote } from '../helpers/media-fixtures.js';
import { CheckedScript } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';

/**
 * Voice notes end to end: real Ogg/Opus audio made at test time (espeak-ng + opusenc) is
 * served as Twilio media, downloaded, measured, sent to an OpenAI-compatible transcription
 * endpoint by the real `openai` client (the fake checks the upload), and the transcript
 * becomes the message, framed for the model as spoken, and the turn runs as if typed.
 */

const ZONE = 'America/New_York';
const script = new CheckedScript();
const checked = script.checked.bind(script);

describe('voice notes', () => {
  let harness: HeraldHarness;
  let transcription: FakeTranscriptionServer;
  let counter = 0;
  let address: string;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    transcription = await FakeTranscriptionServer.start();
    harness = await HeraldHarness.start({ env: { TRANSCRIPTION_BASE_URL: transcription.url, TRANSCRIPTION_API_KEY: transcription.apiKey, VOICE_MAX_SECONDS: '300' } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    transcription.reset();
    counter += 1;
    phone = `+1718555${String(3000 + counter)}`;
    address = `whatsapp:${phone}`;
    userId = (await createUser(harness, phone, { timezone: ZONE, channel: 'whatsapp', lastWhatsappInboundAt: new Date() })).id;
  });
  afterAll(async () => {
    await harness.close();
    await transcription.close();
  });

  async function sendVoice(audio: Buffer, type = 'audio/ogg', from = address): Promise<string> {
    const url = harness.twilio.media.add(audio, type);
    const response = await harness.inbound({ from, body: '', numMedia: 1, extra: { MediaUrl0: url, MediaContentType0: type } });
    expect(response.statusCode).toBe(200);
    const replies = await harness.repliesTo(from, 1);
    script.rethrow();
    return replies[0]!.body ?? '';
  }

  const message = () => harness.database.prisma.message.findFirstOrThrow({ where: { userId, role: 'user' }, include: { media: true } });
  const turn = () => harness.database.prisma.turn.findFirstOrThrow({ where: { userId } });

  it('"remind me to call mom at 6": transcribed, framed as spoken, and the reminder is set as if typed', async () => {
    const audio = await voiceNote('remind me to call mom at 6');
    transcription.enqueue({ text: 'Remind me to call mom at 6.' });
    const six = DateTime.now().setZone(ZONE).plus({ days: 1 }).set({ hour: 18, minute: 0, second: 0, millisecond: 0 });
    harness.anthropic.enqueue(
      checked((request) => {
        const text = request.lastUserText();
        expect(text).toContain('<voice_note_transcript>\nRemind me to call mom at 6.\n</voice_note_transcript>');
        expect(request.systemText() + text).not.toContain('cannot open');
        return { toolCalls: [{ name: 'create_plan', input: { analysis: 'A reminder', goal: 'Remind to call mom', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Remind the user to call mom at ${six.toFormat("yyyy-MM-dd'T'HH:mm")}` }] } }] };
      }),
      { toolCalls: [{ name: 'create_scheduled_job', input: { text: 'Call mom', at: six.toFormat("yyyy-MM-dd'T'HH:mm:ss") } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Reminder set', reply: "I'll remind you to call mom at 6 PM.", created: [{ description: 'Call mom' }] } }] },
    );
    expect(await sendVoice(audio)).toBe("I'll remind you to call mom at 6 PM.");

    // The upload: the Ogg/Opus exactly as WhatsApp sent it, to the configured model.
    expect(transcription.requests).toHaveLength(1);
    expect(transcription.requests[0]).toMatchObject({ model: 'gpt-4o-mini-transcribe', format: 'ogg', fileName: 'voice-note.ogg', responseFormat: 'json', authorization: `Bearer ${transcription.apiKey}` });
    expect(transcription.requests[0]!.sha256).toBe(createHash('sha256').update(audio).digest('hex'));
    expect(await harness.database.prisma.reminder.count({ where: { userId } })).toBe(1);
    // Stored as the user's words, marked as transcribed; the media row keeps its length.
    const stored = await message();
    expect(stored).toMatchObject({ content: 'Remind me to call mom at 6.', transcribed: true });
    expect(stored.media[0]).toMatchObject({ status: 'ready', contentType: 'audio/ogg', durationSeconds: 2 });
    // The transcribed seconds are in the turn's cost (0.003 USD a minute by default).
    const row = await turn();
    expect(row.transcriptionSeconds).toBe(2);
    const modelCost = (row.models as Array<{ costUsd: number }>).reduce((sum, line) => sum + line.costUsd, 0);
    expect(Number(row.costUsd)).toBeCloseTo(modelCost + (2 / 60) * 0.003, 6);
  });

  it('when the turn ends in a YES question, the question quotes what was heard', async () => {
    await harness.herald.calendar.calendars.calendarOf(userId).then(async ({ provider }) => {
      const tomorrow = DateTime.now().setZone(ZONE).plus({ days: 1 });
      await provider.createEvent({ title: 'Dentist', start: tomorrow.set({ hour: 15, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm"), end: tomorrow.set({ hour: 16, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm"), allDay: false, timezone: ZONE });
    });
    transcription.enqueue({ text: 'Delete my dentist appointment tomorrow.' });
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Delete', goal: 'Delete the dentist appointment', steps: [{ id: 'step_1', agent: 'calendar-agent', task: 'Delete the "Dentist" appointment tomorrow' }] } }] },
      {
        toolCalls: [
          { name: 'delete_calendar_event', input: { match: 'dentist' } },
          { name: 'complete_step', input: { summary: 'Deleting awaits confirmation', reply: 'I can remove the dentist appointment once you confirm.' } },
        ],
      },
    );
    const reply = await sendVoice(await voiceNote('delete my dentist appointment tomorrow'));
    expect(reply).toMatch(/^I can remove the dentist appointment once you confirm\.\n\nI heard: "Delete my dentist appointment tomorrow\."\. Delete "Dentist".*Reply YES or NO\.$/s);
    expect(await harness.database.prisma.pendingQuestion.count({ where: { userId, status: 'pending' } })).toBe(1);
  });

  it('the next turn sees the earlier voice note as spoken words, not as an empty message', async () => {
    transcription.enqueue({ text: 'I moved to Lisbon.' });
    harness.anthropic.enqueue({ text: 'Noted!' });
    await sendVoice(await voiceNote('I moved to Lisbon'));
    harness.anthropic.enqueue(
      checked((request) => {
        const first = request.body.messages?.[0];
        expect(first?.content).toBe('<voice_note_transcript>\nI moved to Lisbon.\n</voice_note_transcript>');
        return { text: 'Lisbon is lovely.' };
      }),
    );
    await harness.inbound({ from: address, body: 'what do you think?' });
    const replies = await harness.repliesTo(address, 2);
    script.rethrow();
    expect(replies[1]!.body).toBe('Lisbon is lovely.');
  });

  it('an AMR voice note (MMS) is converted with ffmpeg to WAV before it is sent', async () => {
    transcription.enqueue({ text: 'Call the plumber.' });
    harness.anthropic.enqueue({ text: 'Want me to remind you to call the plumber?' });
    expect(await sendVoice(amrVoiceNote(3), 'audio/amr', phone)).toBe('Want me to remind you to call the plumber?');
    expect(transcription.requests[0]).toMatchObject({ format: 'wav', fileName: 'voice-note.wav', fileType: 'audio/wav' });
    expect((await message()).media[0]).toMatchObject({ contentType: 'audio/amr', durationSeconds: 3 });
  });

  it('the endpoint answering 429 then 200: one retry, then the turn runs', async () => {
    transcription.enqueue({ status: 429, retryAfterSeconds: 0 }, { text: 'What time is it in Tokyo?' });
    harness.anthropic.enqueue({ text: "It's 9 AM in Tokyo." });
    expect(await sendVoice(await voiceNote('what time is it in Tokyo'))).toBe("It's 9 AM in Tokyo.");
    expect(transcription.requests).toHaveLength(2);
  });

  it.each([
    ['500 (after its one retry)', [{ status: 500 }, { status: 500 }], 2],
    ['nonsense JSON', [{ rawJson: '{"transcript": 42, "oops": [' }], 1],
    ['JSON without text', [{ rawJson: '{"result": "ok"}' }], 1],
  ] as const)('the endpoint answering %s: one short apology, the message kept, no model call', async (_name, answers, uploads) => {
    transcription.enqueue(...answers);
    expect(await sendVoice(await voiceNote('buy milk'))).toBe("Sorry, I couldn't listen to your voice note just now. It's saved; please try again in a minute, or type it.");
    expect(transcription.requests).toHaveLength(uploads);
    expect(harness.anthropic.requests).toHaveLength(0);
    const stored = await message();
    expect(stored).toMatchObject({ inboundStatus: 'handled', transcribed: false });
    expect(stored.media[0]).toMatchObject({ status: 'failed', sha256: expect.any(String) });
    expect(await turn()).toMatchObject({ status: 'failed', errorKind: 'tool', transcriptionSeconds: 0 });
  });

  it('a spoken "yes" does not confirm a pending question: it is a new turn, and the question waits for a typed YES', async () => {
    await harness.database.prisma.pendingQuestion.create({
      data: {
        shortId: 'dentist1',
        userId,
        kind: 'confirmation',
        channel: 'whatsapp',
        payload: { actions: [{ agent: 'calendar-agent', tool: 'delete_calendar_event', input: { eventId: 'x', version: '0' }, question: 'Delete "Dentist"?', done: 'Deleted.' }] },
        question: 'Delete "Dentist"?',
        expiresAt: new Date(Date.now() + 5 * 60_000),
      },
    });
    transcription.enqueue({ text: 'Yes.' });
    harness.anthropic.enqueue({ text: 'Yes to what? If it is the dentist, please type YES.' });
    expect(await sendVoice(await voiceNote('yes'))).toBe('Yes to what? If it is the dentist, please type YES.');
    expect((await harness.database.prisma.pendingQuestion.findFirstOrThrow({ where: { userId } })).status).toBe('pending');
  });

  it('over the daily budget: the budget notice, and no transcription is paid for', async () => {
    await harness.database.prisma.turn.create({ data: { userId, status: 'succeeded', costUsd: 1, startedAt: new Date(), finishedAt: new Date() } });
    const reply = await sendVoice(await voiceNote('what is the weather'));
    expect(reply).toMatch(/budget|limit/i);
    expect(transcription.requests).toHaveLength(0);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('a 0-byte voice note: told it arrived empty, no transcription call', async () => {
    expect(await sendVoice(Buffer.alloc(0))).toBe('Your voice note reached me empty.');
    expect(transcription.requests).toHaveLength(0);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('a 20-minute voice note is refused by its length, without a transcription call', async () => {
    expect(await sendVoice(await longVoiceNote(20 * 60))).toBe('Your voice note is 20 min long; I listen to up to 5 min. Could you send a shorter one, or type it?');
    expect(transcription.requests).toHaveLength(0);
    expect((await message()).media[0]).toMatchObject({ status: 'refused', problem: 'too_long', durationSeconds: 1200 });
  }, 30_000);
});

describe('voice notes without a transcription endpoint', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('answers politely, says what the operator can set, and calls no model', async () => {
    const address = 'whatsapp:+17185559999';
    const url = harness.twilio.media.add(await voiceNote('hello'), 'audio/ogg');
    await harness.inbound({ from: address, body: '', numMedia: 1, extra: { MediaUrl0: url, MediaContentType0: 'audio/ogg' } });
    const [reply] = await harness.repliesTo(address, 1);
    expect(reply!.body).toBe("I can't listen to voice notes here yet (whoever runs this Herald can turn it on by setting TRANSCRIPTION_BASE_URL). Could you type it instead?");
    expect(harness.anthropic.requests).toHaveLength(0);
  });
});
