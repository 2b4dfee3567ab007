import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedLogs } from '../helpers/herald-harness.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * NFR-2 / NFR-3 (docs/ARCHITECTURE.md "The orchestrator"): every plan and step transition is a
 * structured pino event carrying the plan id, step id, agent, status, retry count,
 * duration and token usage, tied to its turn; the webhook's lines tie to the turn's; and
 * logs at info and above never carry what the user said, what Herald remembers, the
 * tasks it delegated or what it replied. Secrets never appear at any level.
 */

type Line = CapturedLogs['lines'][number];

describe('observability of a planned turn', () => {
  let harness: HeraldHarness;
  const phone = '+14155554001';
  const failingPhone = '+14155554002';
  // Distinctive words, so a leak cannot hide behind common ones.
  const userText = 'remember that my zebrafish is called Quillonius Drax';
  const task = 'Save this fact: the user has a zebrafish called Quillonius Drax (category personal, subject pet).';
  const factContent = 'Has a zebrafish called Quillonius Drax';
  const reply = 'Noted: your zebrafish is Quillonius Drax.';
  const failingText = 'remember my locker code is Marzipan Okapi';
  const failingTask = 'Save this fact: the locker code is Marzipan Okapi.';
  const apologyText = 'Sorry, I could not save the Marzipan Okapi code.';
  const distinctive = ['Quillonius', 'Drax', 'Marzipan', 'Okapi'];

  let stored: Line;
  let turnId: string;
  let planId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
    const plan = (stepTask: string) => ({
      toolCalls: [{ name: 'create_plan', input: { analysis: 'A fact to save', goal: 'Save a fact', steps: [{ id: 'step_1', agent: 'memory-agent', task: stepTask }] } }],
    });

    // A planned turn that succeeds: 2 calls.
    harness.anthropic.enqueue(plan(task), {
      toolCalls: [
        { name: 'remember_fact', input: { category: 'personal', subject: 'pet', content: factContent } },
        { name: 'complete_step', input: { summary: 'Saved 1 fact', reply, created: [{ description: factContent }] } },
      ],
    });
    await harness.inbound({ from: phone, body: userText });
    const [sent] = await harness.replies(1);
    expect(sent?.body).toBe(reply);
    expect(harness.anthropic.requests).toHaveLength(2);

    // A planned turn whose step fails three times (bad category, then unbacked claims) and is replanned: 5 calls.
    const claim = { toolCalls: [{ name: 'complete_step', input: { summary: 'Saved', created: [{ description: 'Locker code: Marzipan Okapi' }] } }] };
    harness.anthropic.enqueue(
      plan(failingTask),
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'secrets', content: 'Locker code is Marzipan Okapi' } },
          { name: 'complete_step', input: { summary: 'Saved', created: [{ description: 'Locker code: Marzipan Okapi' }] } },
        ],
      },
      claim,
      claim,
      { text: apologyText },
    );
    await harness.inbound({ from: failingPhone, body: failingText });
    const [, apology] = await harness.replies(2);
    expect(apology?.body).toBe(apologyText);
    expect(harness.anthropic.requests).toHaveLength(7);

    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    stored = harness.logs.lines.find((line) => line.msg === 'inbound message stored' && line.userId === user.id)!;
    expect(stored).toBeDefined();
    const message = await harness.database.prisma.message.findUniqueOrThrow({ where: { id: String(stored.messageId) } });
    turnId = message.turnId!;
    planId = (await harness.database.prisma.planRun.findFirstOrThrow({ where: { turnId } })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const events = (name: string, plan = planId) => harness.logs.lines.filter((line) => line.event === name && line.planId === plan);

  it('logs plan and step transitions with ids, status, retry count, duration and tokens', () => {
    const [created] = events('plan_created');
    expect(created).toMatchObject({ level: 30, planId, turnId, userId: stored.userId, status: 'executing', version: 1, steps: 1, agents: ['memory-agent'] });

    const [started] = events('step_started');
    expect(started).toMatchObject({ level: 30, planId, turnId, stepId: 'step_1', agent: 'memory-agent', status: 'running', retryCount: 0 });

    const [completed] = events('step_completed');
    expect(completed).toMatchObject({ level: 30, planId, turnId, stepId: 'step_1', agent: 'memory-agent', status: 'completed', retryCount: 0, modelCalls: 1, toolCalls: 1 });
    expect(completed!.durationMs).toEqual(expect.any(Number));
    expect(completed!.inputTokens).toBeGreaterThan(0);
    expect(completed!.outputTokens).toBeGreaterThan(0);

    const [finished] = events('plan_completed');
    expect(finished).toMatchObject({ level: 30, planId, turnId, status: 'completed', version: 1, modelCalls: 2 });

    // In order, once each.
    const sequence = harness.logs.lines.filter((line) => line.planId === planId && typeof line.event === 'string').map((line) => line.event);
    expect(sequence).toEqual(['plan_created', 'step_started', 'step_completed', 'plan_completed']);
  });

  it('logs a failing step: each attempt, the retries, the replan and the plan outcome', async () => {
    const failingUser = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: failingPhone } });
    const failingPlan = (await harness.database.prisma.planRun.findFirstOrThrow({ where: { userId: failingUser.id } })).id;
    const lines = harness.logs.lines.filter((line) => line.planId === failingPlan && typeof line.event === 'string');
    expect(lines.map((line) => [line.event, line.retryCount ?? null])).toEqual([
      ['plan_created', null],
      ['step_started', 0],
      ['step_failed', 0],
      ['step_retrying', 0],
      ['step_started', 1],
      ['step_failed', 1],
      ['step_retrying', 1],
      ['step_started', 2],
      ['step_failed', 2],
      ['plan_replanned', null],
      expect.arrayContaining([expect.stringMatching(/^plan_(completed|failed)$/)]),
    ]);
    for (const failed of lines.filter((line) => line.event === 'step_failed')) {
      expect(failed).toMatchObject({ stepId: 'step_1', agent: 'memory-agent', status: 'failed', errorKind: 'verification', modelCalls: 1 });
      expect(failed.durationMs).toEqual(expect.any(Number));
      expect(failed.inputTokens).toBeGreaterThan(0);
    }
    // Why it failed is at debug level only (it may quote the model).
    const details = harness.logs.lines.filter((line) => line.planId === failingPlan && line.msg === 'step error detail');
    expect(details.length).toBe(3);
    expect(details.every((line) => line.level === 20)).toBe(true);
  });

  it('ties the webhook to the turn, the turn to the plan, and the plan to its steps', async () => {
    // Webhook: the request's lines share a reqId; "stored" names the user and the message.
    expect(stored).toMatchObject({ level: 30, userId: expect.any(String), messageId: expect.any(String), messageSid: expect.any(String), reqId: expect.any(String) });
    const completedRequest = harness.logs.lines.find((line) => line.reqId === stored.reqId && line.msg === 'request completed');
    expect(completedRequest).toMatchObject({ res: { statusCode: 200 } });

    // Turn: its lines carry turnId and the same userId (the message row links message → turn).
    const turnLines = harness.logs.lines.filter((line) => line.turnId === turnId && line.component === 'turn');
    expect(turnLines.map((line) => line.msg)).toEqual(['turn started', 'turn finished']);
    expect(turnLines.every((line) => line.userId === stored.userId)).toBe(true);
    expect(turnLines[1]).toMatchObject({ status: 'succeeded', modelCalls: 2, replied: true });

    // Plan and steps: every event of the plan carries the turn id; steps carry the plan id.
    const planLines = harness.logs.lines.filter((line) => line.planId === planId);
    expect(planLines.length).toBeGreaterThanOrEqual(4);
    expect(planLines.every((line) => line.turnId === turnId && line.userId === stored.userId)).toBe(true);

    // Delivery: the outbox's line names the turn it delivers for.
    expect(harness.logs.lines.some((line) => line.turnId === turnId && line.msg === 'outbound part sent')).toBe(true);
  });

  it('the turn\'s "turn started" line names the inbound messageIds it answers (webhook → turn from logs alone)', () => {
    const started = harness.logs.lines.find((line) => line.turnId === turnId && line.msg === 'turn started');
    expect(started?.messageIds).toEqual([stored.messageId]);
  });

  it('plan_completed carries the plan\'s duration and token totals (NFR-2)', () => {
    const [finished] = events('plan_completed');
    expect(finished).toMatchObject({ durationMs: expect.any(Number), inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
  });

  it('keeps the user\'s words, facts, tasks and replies out of info-level (and higher) lines', () => {
    const sensitive = [userText, task, factContent, reply, failingText, failingTask, apologyText, ...distinctive];
    const leaks = harness.logs.lines
      .filter((line) => line.level >= 30)
      .flatMap((line) => {
        const json = JSON.stringify(line);
        return sensitive.filter((text) => json.includes(text)).map((text) => ({ text, msg: line.msg, level: line.level }));
      });
    expect(leaks).toEqual([]);
    // They are logged at debug at most, and the captured debug output is not empty.
    expect(harness.logs.lines.some((line) => line.level === 20)).toBe(true);
  });

  it('never logs secrets, at any level', () => {
    const text = harness.logs.text();
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(harness.twilio.authToken);
    expect(text).not.toContain('test-anthropic-key');
    // The auth token may be logged only as redacted.
    expect(text).not.toMatch(/"authToken":"(?!\[redacted\])/);
  });
});
