import type { IncomingMessage } from 'node:http';
import { errorAnswer, listPage, newSid, type FakeAnswer } from './http.js';

/** An incoming phone number, as `IncomingPhoneNumbers` lists it. */
export interface FakeIncomingNumber {
  sid: string;
  phone_number: string;
  sms_url: string;
  sms_method: string;
  sms_fallback_url: string;
  /** Voice's status callback; messaging's is per message or on the Messaging Service. */
  status_callback: string;
}

/** A Messaging Service, with its A2P campaigns and channel senders (RCS). */
export interface FakeMessagingService {
  sid: string;
  friendly_name: string;
  inbound_request_url: string | null;
  status_callback: string | null;
  use_inbound_webhook_on_number: boolean;
  us_app_to_person_registered: boolean;
  campaigns: Array<{ sid: string; campaign_status: string; us_app_to_person_usecase: string }>;
  senders: Array<{ sid: string; sender: string; sender_type: string }>;
}

/** A WhatsApp sender (Senders API v2). */
export interface FakeWhatsAppSender {
  sid: string;
  sender_id: string;
  status: string;
  webhook: { callback_url: string | null; callback_method: string; status_callback_url: string | null };
}

const NUMBERS_PATH = /^(?:\/.*)?\/2010-04-01\/Accounts\/([^/]+)\/IncomingPhoneNumbers\.json$/;
const SERVICE_PATH = /^(?:\/.*)?\/v1\/Services\/(MG[0-9a-fA-F]{32})$/;
const CAMPAIGNS_PATH = /^(?:\/.*)?\/v1\/Services\/(MG[0-9a-fA-F]{32})\/Compliance\/Usa2p$/;
const SERVICE_SENDERS_PATH = /^(?:\/.*)?\/v1\/Services\/(MG[0-9a-fA-F]{32})\/ChannelSenders$/;
const TOLLFREE_PATH = /^(?:\/.*)?\/v1\/Tollfree\/Verifications$/;
const SENDERS_PATH = /^(?:\/.*)?\/v2\/Channels\/Senders$/;

/**
 * The account's messaging configuration, as `npm run doctor` reads it through the SDK:
 * incoming numbers (their SMS webhook), Messaging Services (inbound URL, status callback,
 * A2P 10DLC campaigns, channel senders such as RCS), toll-free verifications and WhatsApp
 * senders (v2 Senders API). Tests build a deployment that is right, then break one thing.
 * Unknown services are 404s, as at Twilio.
 */
export class FakeAccountConfig {
  readonly numbers: FakeIncomingNumber[] = [];
  readonly services = new Map<string, FakeMessagingService>();
  readonly tollfree: Array<{ sid: string; tollfree_phone_number_sid: string; status: string }> = [];
  readonly whatsappSenders: FakeWhatsAppSender[] = [];
  /** Paths read, in order (GETs of the configuration). */
  readonly reads: string[] = [];

  constructor(private readonly url: string, private readonly accountSid: string) {}

  addNumber(phone: string, smsUrl: string): FakeIncomingNumber {
    const number = { sid: newSid('PN'), phone_number: phone, sms_url: smsUrl, sms_method: 'POST', sms_fallback_url: '', status_callback: '' };
    this.numbers.push(number);
    return number;
  }

  addService(fields: Partial<FakeMessagingService> = {}): FakeMessagingService {
    const service: FakeMessagingService = {
      sid: newSid('MG'),
      friendly_name: 'Herald',
      inbound_request_url: null,
      status_callback: null,
      use_inbound_webhook_on_number: false,
      us_app_to_person_registered: false,
      campaigns: [],
      senders: [],
      ...fields,
    };
    this.services.set(service.sid, service);
    return service;
  }

  addWhatsAppSender(senderId: string, fields: Partial<FakeWhatsAppSender> = {}): FakeWhatsAppSender {
    const sender: FakeWhatsAppSender = { sid: newSid('XE'), sender_id: senderId, status: 'ONLINE', webhook: { callback_url: null, callback_method: 'POST', status_callback_url: null }, ...fields };
    this.whatsappSenders.push(sender);
    return sender;
  }

  reset(): void {
    this.numbers.length = 0;
    this.services.clear();
    this.tollfree.length = 0;
    this.whatsappSenders.length = 0;
    this.reads.length = 0;
  }

  /** Answers a configuration read (auth already checked), or undefined for other paths. */
  handle(request: IncomingMessage, url: URL): FakeAnswer | undefined {
    const path = url.pathname;
    const numbers = NUMBERS_PATH.exec(path);
    const service = SERVICE_PATH.exec(path);
    const campaigns = CAMPAIGNS_PATH.exec(path);
    const serviceSenders = SERVICE_SENDERS_PATH.exec(path);
    const matched = numbers ?? service ?? campaigns ?? serviceSenders ?? TOLLFREE_PATH.exec(path) ?? SENDERS_PATH.exec(path);
    if (!matched) return undefined;
    if (request.method !== 'GET') return undefined;
    this.reads.push(path);
    if (numbers) {
      if (numbers[1] !== this.accountSid) return errorAnswer({ status: 404, message: `The requested resource ${path} was not found` });
      const phone = url.searchParams.get('PhoneNumber');
      const records = this.numbers.filter((number) => !phone || number.phone_number === phone).map((number) => ({ ...number, account_sid: this.accountSid, capabilities: { sms: true, mms: true, voice: true } }));
      return { status: 200, body: { incoming_phone_numbers: records, start: 0, end: Math.max(records.length - 1, 0), page: 0, page_size: 50, first_page_uri: path, next_page_uri: null, previous_page_uri: null, uri: path } };
    }
    const sid = (service ?? campaigns ?? serviceSenders)?.[1];
    if (sid !== undefined) {
      const found = this.services.get(sid);
      if (!found) return errorAnswer({ status: 404, message: `The requested resource ${path} was not found` });
      const { campaigns: campaignList, senders, ...resource } = found;
      if (service) return { status: 200, body: { ...resource, account_sid: this.accountSid, url: `${this.url}${path}` } };
      if (campaigns) return { status: 200, body: listPage(`${this.url}${path}`, 'compliance', campaignList.map((campaign) => ({ ...campaign, messaging_service_sid: sid, account_sid: this.accountSid }))) };
      return { status: 200, body: listPage(`${this.url}${path}`, 'senders', senders.map((sender) => ({ ...sender, messaging_service_sid: sid, account_sid: this.accountSid }))) };
    }
    if (TOLLFREE_PATH.test(path)) {
      const number = url.searchParams.get('TollfreePhoneNumberSid');
      return { status: 200, body: listPage(`${this.url}${path}`, 'verifications', this.tollfree.filter((entry) => !number || entry.tollfree_phone_number_sid === number)) };
    }
    const channel = url.searchParams.get('Channel');
    if (channel !== 'whatsapp') return errorAnswer({ status: 400, code: 20001, message: 'Invalid parameter: Channel must be whatsapp' });
    return { status: 200, body: listPage(`${this.url}${path}`, 'senders', this.whatsappSenders) };
  }
}
