import type twilio from 'twilio';
import { describeError } from '../shared/errors.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/** What the doctor checks the account against: the deployment's own settings. */
export interface DoctorSettings {
  /** PUBLIC_BASE_URL: webhooks must point at `<it>/twilio/messages`. */
  publicBaseUrl: string;
  smsFrom?: string | undefined;
  whatsappFrom?: string | undefined;
  messagingServiceSid?: string | undefined;
  whatsappReminderContentSid?: string | undefined;
}

/** One channel's findings: what was checked and found right, and what is wrong. */
export interface ChannelReport {
  channel: 'SMS' | 'WhatsApp' | 'RCS';
  /** The sender checked (a number, a whatsapp: address, a Messaging Service SID). */
  sender: string;
  ok: string[];
  problems: string[];
}

/** US toll-free area codes (a +1 number in one of them needs toll-free verification, not A2P 10DLC). */
const TOLL_FREE = new Set(['800', '833', '844', '855', '866', '877', '888']);
/** Twilio's WhatsApp sandbox: configured in the console, not through the Senders API. */
const SANDBOX = 'whatsapp:+14155238886';

type Service = Awaited<ReturnType<ReturnType<twilio.Twilio['messaging']['v1']['services']>['fetch']>>;

/**
 * Reads the deployment's Twilio configuration through the API and says, channel by channel,
 * what is wrong (`npm run doctor`): a number's or sender's inbound webhook not at
 * `PUBLIC_BASE_URL/twilio/messages`, a status callback missing, the A2P 10DLC campaign not
 * approved (or a toll-free number not verified), the WhatsApp sender not online, the
 * reminder template missing or not approved, a Messaging Service without an RCS sender while
 * RCS is configured. A read that fails is itself a problem of that channel.
 */
export async function diagnose(client: twilio.Twilio, settings: DoctorSettings): Promise<ChannelReport[]> {
  const base = withoutTrailingSlashes(settings.publicBaseUrl);
  const expected = { inbound: `${base}/twilio/messages`, status: `${base}/twilio/status` };
  const services = new Map<string, Promise<Service | undefined>>();
  const service = (sid: string) => {
    let found = services.get(sid);
    if (!found) {
      found = client.messaging.v1.services(sid).fetch().catch((error: unknown) => {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      });
      services.set(sid, found);
    }
    return found;
  };
  const reports: ChannelReport[] = [];
  if (settings.smsFrom) reports.push(await guarded('SMS', settings.smsFrom, (report) => checkSms(client, settings, expected, service, report)));
  if (settings.whatsappFrom) reports.push(await guarded('WhatsApp', settings.whatsappFrom, (report) => checkWhatsApp(client, settings, expected, report)));
  if (settings.messagingServiceSid) reports.push(await guarded('RCS', settings.messagingServiceSid, (report) => checkRcs(client, settings.messagingServiceSid!, expected, service, report)));
  return reports;
}

async function guarded(channel: ChannelReport['channel'], sender: string, check: (report: ChannelReport) => Promise<void>): Promise<ChannelReport> {
  const report: ChannelReport = { channel, sender, ok: [], problems: [] };
  try {
    await check(report);
  } catch (error) {
    report.problems.push(`could not read the configuration from Twilio: ${describeError(error)}`);
  }
  return report;
}

type Expected = { inbound: string; status: string };

async function checkSms(client: twilio.Twilio, settings: DoctorSettings, expected: Expected, service: (sid: string) => Promise<Service | undefined>, report: ChannelReport): Promise<void> {
  const from = settings.smsFrom!;
  const serviceSid = from.startsWith('MG') ? from : settings.messagingServiceSid;
  if (from.startsWith('MG')) {
    await checkService(from, expected, service, report);
  } else {
    const [number] = await client.incomingPhoneNumbers.list({ phoneNumber: from, limit: 1 });
    if (!number) {
      report.problems.push(`${from} is not a number of this Twilio account`);
      return;
    }
    const found = serviceSid ? await service(serviceSid) : undefined;
    // A number in a Messaging Service that does not defer to the number's own webhook gets the service's.
    if (found && !found.useInboundWebhookOnNumber && found.inboundRequestUrl) {
      checkUrl(report, 'inbound webhook (the Messaging Service\'s)', found.inboundRequestUrl, expected.inbound);
    } else {
      checkUrl(report, `inbound webhook of ${from}`, number.smsUrl, expected.inbound);
    }
    if (from.startsWith('+1')) {
      if (TOLL_FREE.has(from.slice(2, 5))) await checkTollFree(client, number.sid, report);
      else await checkA2p(client, serviceSid, service, report);
    }
  }
}

async function checkTollFree(client: twilio.Twilio, numberSid: string, report: ChannelReport): Promise<void> {
  const verifications = await client.messaging.v1.tollfreeVerifications.list({ tollfreePhoneNumberSid: numberSid, limit: 20 });
  if (verifications.length === 0) report.problems.push('toll-free number not verified: no toll-free verification submitted (unverified toll-free traffic is blocked)');
  else if (!verifications.some((verification) => verification.status === 'TWILIO_APPROVED')) report.problems.push(`toll-free verification is ${verifications[0]!.status}, not TWILIO_APPROVED`);
  else report.ok.push('toll-free verification approved');
}

async function checkA2p(client: twilio.Twilio, serviceSid: string | undefined, service: (sid: string) => Promise<Service | undefined>, report: ChannelReport): Promise<void> {
  if (!serviceSid) {
    report.problems.push('US 10-digit number with no Messaging Service (TWILIO_MESSAGING_SERVICE_SID): A2P 10DLC traffic needs a registered brand and campaign on a Messaging Service; unregistered traffic is blocked');
    return;
  }
  if (!(await service(serviceSid))) return; // reported by the service check
  const campaigns = await client.messaging.v1.services(serviceSid).usAppToPerson.list({ limit: 20 });
  if (campaigns.length === 0) report.problems.push(`A2P 10DLC: no campaign registered on ${serviceSid} (unregistered US traffic is blocked)`);
  else if (!campaigns.some((campaign) => campaign.campaignStatus === 'VERIFIED')) report.problems.push(`A2P 10DLC campaign not approved: ${campaigns.map((campaign) => `${campaign.sid} is ${campaign.campaignStatus}`).join(', ')}`);
  else report.ok.push('A2P 10DLC campaign approved');
}

async function checkWhatsApp(client: twilio.Twilio, settings: DoctorSettings, expected: Expected, report: ChannelReport): Promise<void> {
  const from = settings.whatsappFrom!;
  if (from === SANDBOX) {
    report.problems.push('the WhatsApp sandbox is for trying Herald only: register a WhatsApp sender for production (the sandbox\'s webhook is set in the console and cannot be checked here)');
  } else {
    const senders = await client.messaging.v2.channelsSenders.list({ channel: 'whatsapp', limit: 200 });
    const sender = senders.find((candidate) => candidate.senderId === from);
    if (!sender) report.problems.push(`no WhatsApp sender ${from} in this account`);
    else {
      if (sender.status !== 'ONLINE') report.problems.push(`WhatsApp sender is ${sender.status}, not ONLINE`);
      else report.ok.push('WhatsApp sender online');
      // The SDK hands the webhook over as its class (camelCase); read the wire names too.
      const webhook = (sender.webhook ?? {}) as { callbackUrl?: string | null; statusCallbackUrl?: string | null; callback_url?: string | null; status_callback_url?: string | null };
      checkUrl(report, 'inbound webhook of the WhatsApp sender', webhook.callbackUrl ?? webhook.callback_url ?? null, expected.inbound);
      checkUrl(report, 'status callback of the WhatsApp sender', webhook.statusCallbackUrl ?? webhook.status_callback_url ?? null, expected.status);
    }
  }
  const template = settings.whatsappReminderContentSid;
  if (!template) {
    report.problems.push('template missing: TWILIO_WHATSAPP_REMINDER_CONTENT_SID is not set, so reminders due more than 24 hours after a user\'s last message cannot be delivered');
    return;
  }
  try {
    const approval = await client.content.v1.contents(template).approvalFetch().fetch();
    const reported: unknown = (approval.whatsapp as { status?: unknown } | undefined)?.status;
    const status = typeof reported === 'string' ? reported : 'unsubmitted';
    if (status === 'approved') report.ok.push(`reminder template ${template} approved`);
    else report.problems.push(`reminder template ${template} is ${status}, not approved by WhatsApp`);
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
    report.problems.push(`template missing: the reminder template ${template} does not exist in this account`);
  }
}

async function checkRcs(client: twilio.Twilio, serviceSid: string, expected: Expected, service: (sid: string) => Promise<Service | undefined>, report: ChannelReport): Promise<void> {
  if (!(await checkService(serviceSid, expected, service, report))) return;
  const senders = await client.messaging.v1.services(serviceSid).channelSenders.list({ limit: 50 });
  const rcs = senders.find((sender) => sender.sender.toLowerCase().startsWith('rcs:') || sender.senderType?.toUpperCase() === 'RCS');
  if (rcs) report.ok.push(`RCS sender ${rcs.sender}`);
  else report.problems.push(`Messaging Service ${serviceSid} has no RCS sender, while TWILIO_MESSAGING_SERVICE_SID is set for RCS (messages to RCS users go as SMS)`);
}

/** The service's inbound URL and status callback; false when it does not exist. */
async function checkService(sid: string, expected: Expected, service: (sid: string) => Promise<Service | undefined>, report: ChannelReport): Promise<boolean> {
  const found = await service(sid);
  if (!found) {
    report.problems.push(`Messaging Service ${sid} does not exist in this account`);
    return false;
  }
  if (!found.useInboundWebhookOnNumber) checkUrl(report, 'inbound webhook of the Messaging Service', found.inboundRequestUrl, expected.inbound);
  checkUrl(report, 'status callback of the Messaging Service', found.statusCallback, expected.status);
  return true;
}

function checkUrl(report: ChannelReport, what: string, actual: string | null | undefined, expected: string): void {
  if (!actual) report.problems.push(`${what} missing: set it to ${expected}`);
  else if (withoutTrailingSlashes(actual) !== expected) report.problems.push(`${what} is ${actual}, not ${expected}`);
  else report.ok.push(`${what} at ${expected}`);
}

/** The report as `npm run doctor` prints it. */
export function formatReports(reports: ChannelReport[]): string {
  if (reports.length === 0) return 'No channel configured: set TWILIO_SMS_FROM, TWILIO_WHATSAPP_FROM or TWILIO_MESSAGING_SERVICE_SID.\n';
  const lines: string[] = [];
  for (const report of reports) {
    lines.push(`${report.channel} (${report.sender}): ${report.problems.length === 0 ? 'ready' : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`}`);
    for (const problem of report.problems) lines.push(`  ✗ ${problem}`);
    for (const ok of report.ok) lines.push(`  ✓ ${ok}`);
  }
  return `${lines.join('\n')}\n`;
}
