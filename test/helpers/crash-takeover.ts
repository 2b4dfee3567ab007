import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import twilio from 'twilio';
import type { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import type { FakeTwilioServer, SentTwilioMessage } from '../fakes/fake-twilio-server.js';
import { inboundForm } from './herald-harness.js';
import { freePort, startHeraldProcess, type HeraldProcess } from './herald-process.js';

/**
 * The environment of one Herald process in a crash test: real Twilio and Anthropic SDKs
 * against the fakes, one shared database, production lease settings unless `extra` says
 * otherwise. `PUBLIC_BASE_URL` is the same for every instance, as behind a load balancer.
 */
export async function crashTestEnvironment(options: {
  databaseUrl: string;
  fakeTwilio: FakeTwilioServer;
  fakeAnthropic: FakeAnthropicServer;
  publicBaseUrl: string;
  extra?: Record<string, string>;
}): Promise<Record<string, string>> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    PORT: String(await freePort()),
    DATABASE_URL: options.databaseUrl,
    PUBLIC_BASE_URL: options.publicBaseUrl,
    TWILIO_ACCOUNT_SID: options.fakeTwilio.accountSid,
    TWILIO_AUTH_TOKEN: options.fakeTwilio.authToken,
    TWILIO_SMS_FROM: '+15005550006',
    TWILIO_API_BASE_URL: options.fakeTwilio.url,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: options.fakeAnthropic.url,
    ANTHROPIC_MAX_RETRIES: '0',
    // Not the working directory's .data/spool, which another test's processes may share.
    INBOUND_SPOOL_DIR: path.join(tmpdir(), `herald-spool-${randomUUID()}`),
    ...options.extra,
  };
}

/** Posts a signed inbound SMS to one instance, as Twilio would (signed for the shared public URL). */
export async function postInbound(
  instance: HeraldProcess,
  publicBaseUrl: string,
  fakeTwilio: FakeTwilioServer,
  message: { from: string; body: string },
): Promise<number> {
  const form = inboundForm(message, fakeTwilio.accountSid);
  const signature = twilio.getExpectedTwilioSignature(fakeTwilio.authToken, `${publicBaseUrl}/twilio/messages`, form);
  const response = await fetch(`${instance.baseUrl}/twilio/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: new URLSearchParams(form),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Resolves with whichever instance next logs that it started a turn (the one holding the user's lease). */
export async function instanceStartingTurn(instances: HeraldProcess[]): Promise<HeraldProcess> {
  return Promise.any(instances.map((instance) => instance.waitForOutput(/"msg":"turn started"/, instance.output.length).then(() => instance)));
}

/** What one kill measured. */
export interface CrashTakeover {
  killed: HeraldProcess;
  survivor: HeraldProcess;
  /** From the SIGKILL to Twilio accepting the reply. */
  crashToReplyMs: number;
  reply: SentTwilioMessage;
}

/**
 * Texts Herald through `instances[0]`, waits for whichever instance starts the user's turn
 * (its model call hangs), SIGKILLs that one, and times how long the other takes to answer.
 * The model's answer after the kill is `answer`.
 */
export async function killTurnHolderAndAwaitReply(options: {
  instances: [HeraldProcess, HeraldProcess];
  publicBaseUrl: string;
  fakeTwilio: FakeTwilioServer;
  fakeAnthropic: FakeAnthropicServer;
  from: string;
  body: string;
  answer: string;
}): Promise<CrashTakeover> {
  const { instances, fakeTwilio, fakeAnthropic } = options;
  const requestsBefore = fakeAnthropic.requests.length;
  const sentBefore = fakeTwilio.messages.length;
  // The holder's model call never answers: it dies while it waits.
  fakeAnthropic.enqueue({ hang: true });
  const holder = instanceStartingTurn(instances);
  const status = await postInbound(instances[0], options.publicBaseUrl, fakeTwilio, { from: options.from, body: options.body });
  if (status !== 200) throw new Error(`the webhook answered ${status}`);
  const killed = await holder;
  await fakeAnthropic.waitForRequests(requestsBefore + 1);
  const survivor = instances.find((instance) => instance !== killed)!;
  fakeAnthropic.enqueue({ text: options.answer });
  const killedAt = performance.now();
  await killed.crash();
  const sent = await fakeTwilio.waitForMessages(sentBefore + 1);
  const crashToReplyMs = performance.now() - killedAt;
  return { killed, survivor, crashToReplyMs, reply: sent[sentBefore]! };
}

export { startHeraldProcess };
