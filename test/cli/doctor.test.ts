import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTwilioClient } from '../../src/channels/twilio-request-client.js';
import { diagnose, formatReports, type DoctorSettings } from '../../src/cli/twilio-doctor.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { newSid } from '../fakes/twilio/http.js';

/**
 * `npm run doctor` (issue 24, item 4): the deployment's Twilio configuration read through the
 * real SDK from the fake Twilio, which holds a deployment that is right; each test breaks
 * one thing and expects exactly that channel's problem.
 */
const BASE = 'https://herald.example.com';
const INBOUND = `${BASE}/twilio/messages`;
const STATUS = `${BASE}/twilio/status`;
const TEMPLATE = 'HX' + '7'.repeat(32);
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run doctor', { timeout: 60_000 }, () => {
  let fake: FakeTwilioServer;
  let settings: DoctorSettings;
  beforeAll(async () => {
    fake = await FakeTwilioServer.start();
  });
  afterAll(async () => {
    await fake.close();
  });

  /** A deployment with nothing wrong: a US 10DLC number with an approved campaign, an online WhatsApp sender, an approved template, a service with an RCS sender. */
  beforeEach(() => {
    fake.reset();
    const service = fake.config.addService({
      inbound_request_url: INBOUND,
      status_callback: STATUS,
      use_inbound_webhook_on_number: true,
      campaigns: [{ sid: newSid('QE'), campaign_status: 'VERIFIED', us_app_to_person_usecase: 'MIXED' }],
      senders: [{ sid: newSid('XE'), sender: 'rcs:herald_agent', sender_type: 'RCS' }],
    });
    fake.config.addNumber('+14155550100', INBOUND);
    fake.config.addWhatsAppSender('whatsapp:+14155550111', { webhook: { callback_url: INBOUND, callback_method: 'POST', status_callback_url: STATUS } });
    fake.content.contents.delete(TEMPLATE);
    fake.content.register(TEMPLATE, { approval: 'approved' });
    settings = { publicBaseUrl: BASE, smsFrom: '+14155550100', whatsappFrom: 'whatsapp:+14155550111', messagingServiceSid: service.sid, whatsappReminderContentSid: TEMPLATE };
  });

  const client = () => createTwilioClient({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url });
  const problems = async () => Object.fromEntries((await diagnose(client(), settings)).map((report) => [report.channel, report.problems]));
  const service = () => [...fake.config.services.values()][0]!;

  it('finds nothing wrong with a deployment that is right', async () => {
    const reports = await diagnose(client(), settings);
    expect(reports.map((report) => [report.channel, report.problems])).toEqual([['SMS', []], ['WhatsApp', []], ['RCS', []]]);
    expect(formatReports(reports)).toContain('SMS (+14155550100): ready');
    expect(formatReports(reports)).toContain('✓ A2P 10DLC campaign approved');
  });

  it('the number\'s inbound webhook not at PUBLIC_BASE_URL/twilio/messages', async () => {
    fake.config.numbers[0]!.sms_url = 'https://old.example.com/sms';
    expect((await problems()).SMS).toEqual([`inbound webhook of +14155550100 is https://old.example.com/sms, not ${INBOUND}`]);
  });

  it('the Messaging Service\'s status callback missing', async () => {
    service().status_callback = null;
    expect((await problems()).RCS).toEqual([`status callback of the Messaging Service missing: set it to ${STATUS}`]);
  });

  it.each([
    ['IN_PROGRESS', /^A2P 10DLC campaign not approved: QE[0-9a-f]{32} is IN_PROGRESS$/],
    ['FAILED', /^A2P 10DLC campaign not approved: QE[0-9a-f]{32} is FAILED$/],
  ])('the A2P campaign %s, not approved', async (status, problem) => {
    service().campaigns[0]!.campaign_status = status;
    const found = await problems();
    expect(found.SMS).toHaveLength(1);
    expect(found.SMS![0]).toMatch(problem);
  });

  it('no A2P campaign at all', async () => {
    service().campaigns.length = 0;
    expect((await problems()).SMS).toEqual([`A2P 10DLC: no campaign registered on ${service().sid} (unregistered US traffic is blocked)`]);
  });

  it('a toll-free number not verified', async () => {
    const number = fake.config.addNumber('+18885550100', INBOUND);
    settings.smsFrom = number.phone_number;
    expect((await problems()).SMS).toEqual(['toll-free number not verified: no toll-free verification submitted (unverified toll-free traffic is blocked)']);
    fake.config.tollfree.push({ sid: newSid('HH'), tollfree_phone_number_sid: number.sid, status: 'IN_REVIEW' });
    expect((await problems()).SMS).toEqual(['toll-free verification is IN_REVIEW, not TWILIO_APPROVED']);
  });

  it('the WhatsApp sender not online', async () => {
    fake.config.whatsappSenders[0]!.status = 'OFFLINE';
    expect((await problems()).WhatsApp).toEqual(['WhatsApp sender is OFFLINE, not ONLINE']);
  });

  it('the WhatsApp sender\'s webhook elsewhere and its status callback missing', async () => {
    fake.config.whatsappSenders[0]!.webhook = { callback_url: 'https://elsewhere.example.com/wa', callback_method: 'POST', status_callback_url: null };
    expect((await problems()).WhatsApp).toEqual([
      `inbound webhook of the WhatsApp sender is https://elsewhere.example.com/wa, not ${INBOUND}`,
      `status callback of the WhatsApp sender missing: set it to ${STATUS}`,
    ]);
  });

  it('the reminder template missing, not approved, or not configured', async () => {
    fake.content.contents.delete(TEMPLATE);
    expect((await problems()).WhatsApp).toEqual([`template missing: the reminder template ${TEMPLATE} does not exist in this account`]);
    fake.content.register(TEMPLATE, { approval: 'pending' });
    expect((await problems()).WhatsApp).toEqual([`reminder template ${TEMPLATE} is pending, not approved by WhatsApp`]);
    settings.whatsappReminderContentSid = undefined;
    expect((await problems()).WhatsApp).toEqual([expect.stringMatching(/^template missing: TWILIO_WHATSAPP_REMINDER_CONTENT_SID is not set/)]);
  });

  it('the Messaging Service without an RCS sender while RCS is configured', async () => {
    service().senders.length = 0;
    expect((await problems()).RCS).toEqual([`Messaging Service ${service().sid} has no RCS sender, while TWILIO_MESSAGING_SERVICE_SID is set for RCS (messages to RCS users go as SMS)`]);
  });

  it('a Messaging Service that does not exist', async () => {
    settings.messagingServiceSid = 'MG' + 'd'.repeat(32);
    const found = await problems();
    expect(found.RCS).toEqual([`Messaging Service ${'MG' + 'd'.repeat(32)} does not exist in this account`]);
  });

  it('credentials Twilio refuses: every channel says it could not read', async () => {
    const refused = createTwilioClient({ accountSid: fake.accountSid, authToken: 'wrong', apiBaseUrl: fake.url });
    const reports = await diagnose(refused, settings);
    expect(reports.every((report) => report.problems.length === 1 && report.problems[0]!.startsWith('could not read the configuration from Twilio'))).toBe(true);
  });

  it('is the script package.json names, and exits 1 printing the problem (0 once fixed)', async () => {
    const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.doctor).toBe('tsx src/cli/doctor-command.ts');
    const run = async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/doctor-command.ts'], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          PUBLIC_BASE_URL: BASE,
          TWILIO_ACCOUNT_SID: fake.accountSid,
          TWILIO_AUTH_TOKEN: fake.authToken,
          TWILIO_API_BASE_URL: fake.url,
          TWILIO_SMS_FROM: settings.smsFrom!,
          TWILIO_WHATSAPP_FROM: settings.whatsappFrom!,
          TWILIO_MESSAGING_SERVICE_SID: settings.messagingServiceSid!,
          TWILIO_WHATSAPP_REMINDER_CONTENT_SID: TEMPLATE,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = await once(child, 'exit');
      return { code: code as number | null, output };
    };
    fake.config.whatsappSenders[0]!.status = 'OFFLINE';
    const broken = await run();
    expect(broken.code, broken.output).toBe(1);
    expect(broken.output).toContain('WhatsApp (whatsapp:+14155550111): 1 problem\n  ✗ WhatsApp sender is OFFLINE, not ONLINE');
    fake.config.whatsappSenders[0]!.status = 'ONLINE';
    const fixed = await run();
    expect(fixed.code, fixed.output).toBe(0);
  });
});
