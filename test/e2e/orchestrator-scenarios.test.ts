import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fallbackReply } from '../../src/texts/fallback-replies.js';
import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { composerRequest, plannerRequest, RoutedScript, stepRequest } from '../helpers/model-script.js';

/**
 * Seed 001's "Manual Testing Scenarios" whose agents exist today, end to end: a signed
 * webhook in, the real orchestrator against the fake Anthropic server (scripted call by
 * call), the reply out through the fake Twilio. Every scenario asserts the exact number
 * of model calls, and what the turn, plan and step records say afterwards.
 */

interface PlannedStepInput {
  id: string;
  agent: string;
  task: string;
  dependsOn?: string[];
}

/** The planner's `create_plan` call. */
function plan(steps: PlannedStepInput[], goal = 'Do what the user asked', responseHint = 'Confirm briefly'): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: 'Needs an agent', goal, steps, responseHint } }] };
}

/** A sub-agent's request: the only requests offered `complete_step`. */
const isAgentRequest = (request: RecordedAnthropicRequest) => request.toolNames().includes('complete_step');
const messageCount = (request: RecordedAnthropicRequest) => request.body.messages?.length ?? 0;

describe('seed 001 manual scenarios through the webhook', () => {
  let harness: HeraldHarness;
  let phoneCounter = 0;
  const nextPhone = () => `+1415555${String(2000 + (phoneCounter += 1)).padStart(4, '0')}`;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Sends one text and waits for the one reply; returns it with the turn's records. */
  async function exchange(phone: string, body: string) {
    const response = await harness.inbound({ from: phone, body });
    expect(response.statusCode).toBe(200);
    const [reply] = await harness.replies(1);
    harness.anthropic.rethrowScriptErrors();
    expect(reply?.to).toBe(phone);
    return { reply: reply!.body, ...(await records(phone)) };
  }

  /** The user's latest turn, with its plan and step rows (steps in the order they ran). */
  async function records(phone: string) {
    const { prisma } = harness.database;
    const user = await prisma.user.findUniqueOrThrow({ where: { phone } });
    const turn = await prisma.turn.findFirstOrThrow({
      where: { userId: user.id },
      orderBy: { startedAt: 'desc' },
      include: { plans: { include: { stepRuns: { orderBy: [{ startedAt: 'asc' }, { attempt: 'asc' }] } } } },
    });
    expect(turn.plans).toHaveLength(1);
    const facts = await prisma.fact.findMany({ where: { userId: user.id } });
    return { user, turn, planRun: turn.plans[0]!, steps: turn.plans[0]!.stepRuns, facts };
  }

  it('"Hi, how are you?": a direct answer, one model call, no steps', async () => {
    harness.anthropic.enqueue({ text: "I'm doing well, thanks! What can I do for you?" });
    const { reply, turn, planRun, steps } = await exchange(nextPhone(), 'Hi, how are you?');

    expect(reply).toBe("I'm doing well, thanks! What can I do for you?");
    expect(harness.anthropic.requests).toHaveLength(1);
    const [planner] = harness.anthropic.requests;
    expect(planner!.toolNames()).toEqual(expect.arrayContaining(['create_plan', 'resolve_date', 'resolve_time_range', 'get_current_time']));
    expect(planner!.toolNames()).not.toContain('complete_step');
    // Wording that names no agent goes to the light planner (Haiku 5.5): no sampling parameters, an effort level.
    expect(planner!.body.model).toBe('claude-haiku-5-5');
    expect(planner!.body).not.toHaveProperty('temperature');
    expect(planner!.body.output_config).toEqual({ effort: 'medium' });
    expect(planRun).toMatchObject({ status: 'answered_directly', modelCalls: 1, version: 1, replans: 0 });
    expect(steps).toEqual([]);
    expect(turn).toMatchObject({ status: 'succeeded', errorKind: null, modelCalls: 1 });
  });

  it('"Remember I don\'t like early meetings": one memory-agent step, the fact stored and categorized, two calls', async () => {
    const phone = nextPhone();
    const task = "Save this fact about the user: they don't like early meetings (category preferences, subject \"meeting times\").";
    harness.anthropic.enqueue(
      (request) => {
        // The pre-router's hint reached the planner.
        expect(request.systemText()).toMatch(/<hint agent="memory-agent"/);
        return plan([{ id: 'step_1', agent: 'memory-agent', task }], "Remember the user's meeting preference");
      },
      (request) => {
        expect(request.lastUserText()).toContain(`<task>\n${task}\n</task>`);
        return {
          toolCalls: [
            { name: 'remember_fact', input: { category: 'preferences', subject: 'meeting times', content: "Doesn't like early meetings" } },
            {
              name: 'complete_step',
              input: { summary: 'Saved 1 fact', reply: "Noted — I'll remember you don't like early meetings.", created: [{ description: "Doesn't like early meetings" }] },
            },
          ],
        };
      },
    );
    const { reply, turn, planRun, steps, facts } = await exchange(phone, "Remember I don't like early meetings");

    expect(reply).toBe("Noted - I'll remember you don't like early meetings."); // the em dash, plain on SMS
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(harness.anthropic.requests[1]!.toolNames().sort()).toEqual(['complete_step', 'delete_note', 'get_note', 'get_user_facts', 'list_notes', 'remember_fact', 'remove_fact', 'save_note', 'search_memory', 'update_fact', 'update_note', 'update_profile']);
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({ category: 'preferences', subject: 'meeting times', content: "Doesn't like early meetings" });
    expect(planRun).toMatchObject({ status: 'completed', modelCalls: 2, version: 1 });
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ stepId: 'step_1', agent: 'memory-agent', task, attempt: 0, status: 'completed', modelCalls: 1 });
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 2 });
  });

  it('two steps, the second using the first: its text reaches the composer, one composed reply (4 calls)', async () => {
    const draft = 'Happy birthday, Mom! Thank you for everything. Love you lots.';
    const composed = `Saved Mom's birthday (March 3). Here's a message you could send: "${draft}"`;
    harness.anthropic.enqueue(
      plan(
        [
          { id: 'step_1', agent: 'memory-agent', task: "Save this fact: the user's mother's birthday is March 3 (category relationships, subject mom birthday)." },
          { id: 'step_2', agent: 'general-agent', task: 'Write a short, warm birthday text the user can send to their mother.', dependsOn: ['step_1'] },
        ],
        "Remember Mom's birthday and draft a message",
        'Confirm the save and give the draft',
      ),
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'relationships', subject: 'mom birthday', content: "Mother's birthday is March 3" } },
          { name: 'complete_step', input: { summary: "Saved: mother's birthday is March 3", created: [{ description: "Mother's birthday is March 3" }] } },
        ],
      },
      (request) => {
        // FR-5: the earlier step's output, not the conversation.
        expect(request.allText()).toMatch(/<context_from_previous_steps>[^]*<step id="step_1" agent="memory-agent">[^]*Saved: mother's birthday is March 3/);
        expect(request.lastUserText()).not.toContain('<reply>'); // several steps: the composer writes the reply
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Drafted a birthday text for the mother', data: { text: draft } } }] };
      },
      (request) => {
        expect(request.allText()).toContain(draft);
        expect(request.allText()).toContain('<response_hint>Confirm the save and give the draft</response_hint>');
        return { text: composed };
      },
    );
    const { reply, planRun, steps } = await exchange(nextPhone(), "Remember my mom's birthday is March 3 and write her a birthday text");

    expect(reply).toBe(composed);
    expect(harness.anthropic.requests).toHaveLength(4);
    expect(planRun).toMatchObject({ status: 'completed', modelCalls: 4 });
    expect(steps.map((step) => [step.stepId, step.agent, step.status])).toEqual([
      ['step_1', 'memory-agent', 'completed'],
      ['step_2', 'general-agent', 'completed'],
    ]);
  });

  describe('a step that keeps failing: retried afresh, then replanned', () => {
    const task = "Save this fact: the user's gym is FitLife on Main Street.";
    const userText = 'Remember my gym is FitLife on Main Street';

    /** Attempt 1: a bad category (the tool refuses) yet a report claiming the save. */
    const badFirstAttempt: ScriptedAnthropicResponse = {
      toolCalls: [
        { name: 'remember_fact', input: { category: 'fitness', subject: 'gym', content: 'Goes to FitLife on Main Street' } },
        { name: 'complete_step', input: { summary: 'Saved the gym', reply: 'Saved!', created: [{ description: 'Gym: FitLife' }] } },
      ],
    };
    /** Later attempts: a fresh start (the failure summarized, no transcript), still claiming a save it never made. */
    const freshButStillWrong = (attemptNumber: number): ScriptedAnthropicResponse => (request) => {
      expect(messageCount(request)).toBe(1);
      const text = request.allText();
      expect(text).toContain('<previous_attempt>');
      expect(text).toContain(`Attempt ${attemptNumber - 1} failed: The report does not match what was done: claimed 1 created but 0`);
      expect(text).toContain(task);
      // No transcript: the earlier tool calls and their results are not replayed.
      expect(text).not.toContain('Goes to FitLife on Main Street');
      expect(text).not.toContain('Invalid arguments for remember_fact');
      return { toolCalls: [{ name: 'complete_step', input: { summary: 'Saved the gym', reply: 'Saved!', created: [{ description: 'Gym: FitLife' }] } }] };
    };
    const describesTheFailure = (request: RecordedAnthropicRequest) => {
      const replanning = request.lastUserText();
      expect(replanning).toContain('<replanning>');
      expect(replanning).toContain(`step step_1 failed after 3 attempt(s)`);
      expect(replanning).toMatch(/<step id="step_1" agent="memory-agent" status="failed">Save this fact: the user's gym is FitLife on Main Street\.\n\s+Error: The report does not match what was done/);
      expect(request.toolNames()).toContain('create_plan');
      expect(isAgentRequest(request)).toBe(false);
    };

    it('the replanner gives up in text: the user gets that one explanation (5 calls)', async () => {
      expect(harness.config.limits.stepMaxRetries).toBe(2); // so three attempts
      const explanation = "Sorry, I couldn't save your gym just now. Could you try again in a bit?";
      harness.anthropic.enqueue(
        plan([{ id: 'step_1', agent: 'memory-agent', task }]),
        badFirstAttempt,
        freshButStillWrong(2),
        freshButStillWrong(3),
        (request) => {
          describesTheFailure(request);
          return { text: explanation };
        },
      );
      const { reply, turn, planRun, steps, facts } = await exchange(nextPhone(), userText);

      expect(reply).toBe(explanation);
      expect(harness.twilio.messages).toHaveLength(1);
      expect(harness.anthropic.requests).toHaveLength(5);
      expect(harness.anthropic.requests.map(isAgentRequest)).toEqual([false, true, true, true, false]);
      expect(facts).toEqual([]);
      expect(steps.map((step) => [step.stepId, step.attempt, step.status, step.errorKind])).toEqual([
        ['step_1', 0, 'failed', 'verification'],
        ['step_1', 1, 'failed', 'verification'],
        ['step_1', 2, 'failed', 'verification'],
      ]);
      expect(steps[0]!.toolCalls).toEqual([expect.objectContaining({ name: 'remember_fact', isError: true, mutates: true })]);
      expect(planRun).toMatchObject({ version: 2, replans: 1, modelCalls: 5 });
      expect(planRun.error).toContain('step_1: The report does not match what was done');
      expect(turn).toMatchObject({ status: 'failed', errorKind: 'partial', modelCalls: 5 });
    });

    it('the replanner plans another route that works: kept failure, new step, one composed reply (7 calls)', async () => {
      const composed = "Saved: your gym is FitLife on Main Street.";
      harness.anthropic.enqueue(
        plan([{ id: 'step_1', agent: 'memory-agent', task }]),
        badFirstAttempt,
        freshButStillWrong(2),
        freshButStillWrong(3),
        (request) => {
          describesTheFailure(request);
          return plan([{ id: 'step_1', agent: 'memory-agent', task: "Save this fact (category routine, subject gym): the user's gym is FitLife on Main Street." }]);
        },
        (request) => {
          // The new step is a fresh task: no trace of the failed attempts.
          expect(messageCount(request)).toBe(1);
          expect(request.allText()).not.toContain('<previous_attempt>');
          expect(request.allText()).toContain('category routine, subject gym');
          return {
            toolCalls: [
              { name: 'remember_fact', input: { category: 'routine', subject: 'gym', content: 'Goes to FitLife on Main Street' } },
              { name: 'complete_step', input: { summary: 'Saved the gym as a routine fact', created: [{ description: 'Goes to FitLife on Main Street' }] } },
            ],
          };
        },
        (request) => {
          // The composer hears what worked and what did not.
          expect(request.toolNames()).toEqual([]);
          const text = request.allText();
          expect(text).toContain(userText);
          expect(text).toMatch(/<outcome status="failed">[^]*Failed: The report does not match/);
          expect(text).toMatch(/<outcome status="completed">[^]*Result: Saved the gym as a routine fact/);
          return { text: composed };
        },
      );
      const { reply, planRun, steps, facts } = await exchange(nextPhone(), userText);

      expect(reply).toBe(composed);
      expect(harness.anthropic.requests).toHaveLength(7);
      expect(harness.anthropic.requests.map(isAgentRequest)).toEqual([false, true, true, true, false, true, false]);
      expect(facts.map((fact) => [fact.category, fact.subject, fact.content])).toEqual([['routine', 'gym', 'Goes to FitLife on Main Street']]);
      expect(steps.map((step) => [step.stepId, step.attempt, step.status, step.planVersion])).toEqual([
        ['step_1', 0, 'failed', 1],
        ['step_1', 1, 'failed', 1],
        ['step_1', 2, 'failed', 1],
        ['step_1_v2', 0, 'completed', 2], // a fresh id, never the failed step's
      ]);
      expect(planRun).toMatchObject({ status: 'completed', version: 2, replans: 1, modelCalls: 7 });
    });
  });

  describe('invalid model behaviour', () => {
    it('a plan naming an unknown agent twice: an apology, the turn failed with blame "model" (2 calls)', async () => {
      harness.anthropic.enqueue(
        plan([{ id: 'step_1', agent: 'teleport-agent', task: 'Teleport the user to Lisbon on 2026-02-02 (Monday)' }]),
        (request) => {
          // The rejection went back to the planner once, as a tool error naming the real agents.
          expect(request.allText()).toMatch(/unknown agent "teleport-agent"; use one of: [^\n]*memory-agent/);
          return plan([{ id: 'step_1', agent: 'time-machine-agent', task: 'Teleport the user to Lisbon on 2026-02-02 (Monday)' }]);
        },
      );
      const { reply, turn, planRun, steps } = await exchange(nextPhone(), 'Teleport me to Lisbon tomorrow');

      expect(reply).toBe(fallbackReply('apology', null));
      expect(harness.anthropic.requests).toHaveLength(2);
      expect(harness.anthropic.requests.some(isAgentRequest)).toBe(false);
      expect(turn).toMatchObject({ status: 'failed', errorKind: 'model', modelCalls: 2 });
      expect(turn.errorMessage).toContain('unknown agent "time-machine-agent"');
      expect(planRun).toMatchObject({ status: 'failed', modelCalls: 2 });
      expect(steps).toEqual([]);
    });

    it('a sub-agent repeating get_user_facts with the same arguments stalls, is retried, and the user still gets a reply (8 calls)', async () => {
      const loop: ScriptedAnthropicResponse = { toolCalls: [{ name: 'get_user_facts', input: { category: 'preferences' } }] };
      const sorry = "Sorry, I couldn't look that up just now.";
      harness.anthropic.enqueue(
        plan([{ id: 'step_1', agent: 'memory-agent', task: 'Find the saved facts in category preferences and report them.' }]),
        loop,
        loop, // attempt 1 stalls here
        loop,
        loop, // attempt 2
        loop,
        loop, // attempt 3
        (request) => {
          expect(request.lastUserText()).toContain('repeated the same tool call with the same arguments');
          return { text: sorry };
        },
      );
      const { reply, turn, steps } = await exchange(nextPhone(), 'Which of my preferences have you saved? Check properly.');

      expect(reply).toBe(sorry);
      expect(harness.anthropic.requests).toHaveLength(8);
      expect(steps.map((step) => [step.attempt, step.status, step.errorKind, step.modelCalls])).toEqual([
        [0, 'failed', 'stalled', 2],
        [1, 'failed', 'stalled', 2],
        [2, 'failed', 'stalled', 2],
      ]);
      // The repeated call is not run a second time.
      expect(steps[0]!.toolCalls).toEqual([expect.objectContaining({ name: 'get_user_facts', isError: false })]);
      expect(turn).toMatchObject({ status: 'failed', errorKind: 'partial', modelCalls: 8 });
    });
  });
});

describe('seed 001 "very long request": the plan time limit', () => {
  let harness: HeraldHarness;
  let phone = '';
  let phoneCounter = 0;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { PLAN_TIMEOUT_MS: '1500' } });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
    phone = `+1415555${String(2900 + (phoneCounter += 1))}`;
  });
  afterAll(async () => {
    await harness.close();
  });

  const twoSteps = plan(
    [
      { id: 'step_1', agent: 'memory-agent', task: 'Save this fact: the user is allergic to cats (category health, subject allergies).' },
      { id: 'step_2', agent: 'general-agent', task: 'Write a very long poem about cats.' },
    ],
    'Remember the allergy and write the poem',
  );
  const savesTheAllergy: ScriptedAnthropicResponse = {
    toolCalls: [
      { name: 'remember_fact', input: { category: 'health', subject: 'allergies', content: 'Is allergic to cats' } },
      { name: 'complete_step', input: { summary: 'Saved that the user is allergic to cats', created: [{ description: 'Is allergic to cats' }] } },
    ],
  };

  async function latest() {
    const { prisma } = harness.database;
    const user = await prisma.user.findUniqueOrThrow({ where: { phone } });
    const turn = await prisma.turn.findFirstOrThrow({ where: { userId: user.id }, orderBy: { startedAt: 'desc' }, include: { plans: { include: { stepRuns: true } } } });
    return { turn, planRun: turn.plans[0]!, facts: await prisma.fact.findMany({ where: { userId: user.id } }) };
  }

  it('a hanging step is cut off; the reply says time ran out and what was done (4 calls)', async () => {
    const composed = "I saved that you're allergic to cats, but I ran out of time before writing the poem. Want me to try a shorter one?";
    // The two steps run at once: each is answered by its task, whichever asks first.
    harness.anthropic.setFallback(new RoutedScript([
      ['planner', plannerRequest, [twoSteps]],
      ['memory step', stepRequest('allergic to cats'), [savesTheAllergy]],
      ['poem step', stepRequest('very long poem'), [{ hang: true }]],
      ['composer', composerRequest, [(request) => {
      const text = request.allText();
      expect(request.toolNames()).toEqual([]);
      expect(text).toMatch(/<outcome status="completed">[^]*Result: Saved that the user is allergic to cats/);
      expect(text).toMatch(/<outcome status="failed">Write a very long poem about cats\.\n\s+Failed: TimeoutError: the plan took longer than 1500 ms/);
      expect(text).toContain('<note>Time ran out before everything was done.</note>');
      return { text: composed };
    }]],
    ]).answer);
    await harness.inbound({ from: phone, body: 'Remember I am allergic to cats, and write me a very long poem about them' });
    const [reply] = await harness.replies(1);
    // The composer was told the step failed on the plan's limit (not the model's own timeout).
    harness.anthropic.rethrowScriptErrors();

    expect(reply?.body).toBe(composed);
    expect(harness.anthropic.requests).toHaveLength(4);
    const { turn, planRun, facts } = await latest();
    expect(facts.map((fact) => fact.content)).toEqual(['Is allergic to cats']);
    expect(turn).toMatchObject({ status: 'failed', errorKind: 'timeout', modelCalls: 4 });
    expect(planRun).toMatchObject({ status: 'timed_out', modelCalls: 4 });
    const byStep = Object.fromEntries(planRun.stepRuns.map((step) => [step.stepId, step]));
    expect(byStep.step_1).toMatchObject({ status: 'completed' });
    expect(byStep.step_2).toMatchObject({ status: 'failed', errorKind: 'timeout', attempt: 0 }); // no retry after the plan ran out
  });

  it('when composing fails too (its fallback model as well), the user still gets the "took too long" apology (5 calls)', async () => {
    harness.anthropic.setFallback(new RoutedScript([
      ['planner', plannerRequest, [twoSteps]],
      ['memory step', stepRequest('allergic to cats'), [savesTheAllergy]],
      ['poem step', stepRequest('very long poem'), [{ hang: true }]],
      ['composer', composerRequest, [{ error: { status: 500 } }, { error: { status: 500 } }]],
    ]).answer);
    await harness.inbound({ from: phone, body: 'Remember I am allergic to cats, and write me a very long poem about them' });
    const [reply] = await harness.replies(1);

    expect(reply?.body).toContain(fallbackReply('timeout', null));
    expect(harness.anthropic.requests.map((request) => request.body.model)).toEqual([
      // The light planner: "remember" and "i am allergic" point to memory more than "write" to general-agent.
      'claude-haiku-5-5',
      'claude-haiku-5-5',
      'claude-haiku-5-5',
      'claude-haiku-5-5',
      'claude-haiku-4-5',
    ]);
    const { turn, planRun } = await latest();
    expect(turn).toMatchObject({ status: 'failed', errorKind: 'timeout' });
    expect(planRun.status).toBe('timed_out');
  });
});
