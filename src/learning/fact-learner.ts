import type { PrismaClient } from '../db/prisma-types.js';
import type { BudgetGuard } from '../budgets/budget-guard.js';
import type { Logger } from '../logging/logger.js';
import type { HeraldMetrics } from '../observability/metrics.js';
import type { FactService } from '../memory/fact-service.js';
import { toolCallsOf, responseText, type ModelClient } from '../model/model-client.js';
import { costOfUsage, roundUsd } from '../model/model-cost.js';
import { roleRequest, type RoleModel } from '../model/model-roles.js';
import type { JobQueue, QueueDefinition } from '../queue/job-queue.js';
import type { Clock } from '../shared/clock.js';
import { describeError } from '../shared/errors.js';
import type { DateOffers } from './date-offers.js';
import {
  askedToRemember,
  LEARNING_SYSTEM,
  MAX_FACTS_PER_PASS,
  PROPOSE_TOOL,
  proposalsSchema,
  proposedFactSchema,
  saysRememberNothing,
  SPECIAL_CATEGORIES,
  storedCategory,
  type LearnedDate,
  type ProposedFact,
} from './learned-facts.js';

export type { LearnedDate } from './learned-facts.js';

/** The queue of learning passes: at most one waiting per user. */
export const LEARNING_QUEUE = 'fact-learning';

/** A pass's job: whose messages; or, with `dates`, an offer quiet hours held. */
export interface LearningJobData {
  userId: string;
  dates?: LearnedDate[];
}

/** A pass that dies is simply retried: it reads from the same mark. */
export const learningQueueDefinition: QueueDefinition = { name: LEARNING_QUEUE, expireInSeconds: 120, retryLimit: 3, retryDelaySeconds: 30, policy: 'short' };

/** FACT_LEARNING and FACT_LEARNING_DELAY_MS. */
export interface LearningSettings {
  enabled: boolean;
  delayMs: number;
}

/** What a pass did, for tests and logs. */
export type LearningOutcome =
  | { kind: 'off' | 'nothing_new' | 'not_yet' | 'budget' | 'window' | 'gone' }
  | { kind: 'learned'; proposed: number; stored: number; dropped: number; costUsd: number }
  | { kind: 'unreadable'; costUsd: number };

/** Messages read per pass at most (the newest); each cut to this many characters. */
const MAX_MESSAGES = 40;
const MAX_MESSAGE_CHARS = 1_000;

/**
 * Background fact learning (issue 21 item 5): once a conversation pauses
 * (FACT_LEARNING_DELAY_MS after the user's last message), one cheap model call (the agent
 * model, low effort) reads only what the user typed since the last pass (never mail, pages,
 * attachments, transcripts or Herald's own words) and proposes durable facts. The proposals are
 * checked in code, not trusted: a special category (health, religion, politics, sexuality,
 * finances) is kept only when its message asked to remember, a one-off state never, at most
 * MAX_FACTS_PER_PASS; a message saying "remember nothing about this" is never read. Kept
 * facts go through the fact service marked learned with their message (so they never replace
 * one the user asked for, and go when the message goes). The call is a Turn of its own for
 * the daily budget; a user past budget is not read at all.
 */
export class FactLearner {
  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      facts: FactService;
      model: ModelClient;
      role: RoleModel;
      budgets: BudgetGuard;
      queue: JobQueue;
      clock: Clock;
      logger: Logger;
      settings: LearningSettings;
      /** Offers a yearly reminder for a learned birthday or anniversary (src/learning/date-offers.ts); absent: none. */
      offers?: Pick<DateOffers, 'offer' | 'contactDates'>;
      /** Counts each pass by outcome and the facts it stored (`herald_learning_passes_total`). */
      metrics?: Pick<HeraldMetrics, 'learningPass'>;
    },
  ) {}

  /**
   * After a user's message: a pass FACT_LEARNING_DELAY_MS from now, unless one is already
   * waiting (the queue keeps one per user; the pass itself waits for a later message's pause).
   */
  async schedule(userId: string): Promise<void> {
    if (!this.deps.settings.enabled) return;
    await this.deps.queue.enqueue(LEARNING_QUEUE, { userId } satisfies LearningJobData, {
      startAfter: new Date(this.deps.clock.now().getTime() + this.deps.settings.delayMs),
      singletonKey: userId,
    });
  }

  /** "Forget that": nothing the user has written so far is read by a later pass. */
  async skipUnread(userId: string): Promise<void> {
    await this.deps.prisma.user.update({ where: { id: userId }, data: { factsLearnedThrough: this.deps.clock.now() } });
  }

  /** The job: one pass for the user, when their conversation has paused; counted by outcome. */
  async learn(userId: string): Promise<LearningOutcome> {
    let outcome: LearningOutcome;
    try {
      outcome = await this.pass(userId);
    } catch (error) {
      this.deps.metrics?.learningPass('failed', 0);
      throw error;
    }
    this.deps.metrics?.learningPass(outcome.kind, outcome.kind === 'learned' ? outcome.stored : 0);
    return outcome;
  }

  private async pass(userId: string): Promise<LearningOutcome> {
    const { prisma, clock, settings } = this.deps;
    const logger = this.deps.logger.child({ userId });
    if (!settings.enabled) return { kind: 'off' };
    const user = await prisma.user.findUnique({ where: { id: userId }, select: { id: true, timezone: true, optedOut: true, factsLearnedThrough: true, factsLearnedAt: true } });
    if (!user || user.optedOut) return { kind: 'gone' };
    const now = clock.now();
    const last = await prisma.message.findFirst({ where: { userId, role: 'user' }, orderBy: { createdAt: 'desc' }, select: { createdAt: true } });
    if (!last || (user.factsLearnedThrough && last.createdAt <= user.factsLearnedThrough)) return { kind: 'nothing_new' };
    // Still talking: the pass comes once they pause (a job for the later time; none is waiting now, this one is running).
    const pauseEnds = last.createdAt.getTime() + settings.delayMs;
    if (now.getTime() < pauseEnds) {
      await this.deps.queue.enqueue(LEARNING_QUEUE, { userId }, { startAfter: new Date(pauseEnds), singletonKey: userId });
      return { kind: 'not_yet' };
    }
    if ((await this.deps.budgets.check(user)).kind !== 'within') {
      logger.info({ event: 'learning_skipped', reason: 'budget' }, 'fact learning: daily budget spent, nothing read');
      return { kind: 'budget' };
    }
    const messages = await prisma.message.findMany({
      where: {
        userId,
        role: 'user',
        kind: 'chat',
        // Only what they typed: a voice note's transcript, a keyword Twilio answered, are not read.
        transcribed: false,
        optOutType: null,
        ...(user.factsLearnedThrough ? { createdAt: { gt: user.factsLearnedThrough } } : {}),
      },
      orderBy: { createdAt: 'desc' },
      take: MAX_MESSAGES,
      select: { id: true, content: true, createdAt: true },
    });
    messages.reverse();
    const through = messages.at(-1)?.createdAt ?? last.createdAt;
    const readable = messages.filter((message) => message.content.trim() !== '' && !saysRememberNothing(message.content));
    if (readable.length === 0) {
      await prisma.user.update({ where: { id: userId }, data: { factsLearnedThrough: through } });
      return { kind: 'nothing_new' };
    }
    // One model call per user per window, across instances and retries: the claim is one UPDATE.
    const windowStart = new Date(now.getTime() - settings.delayMs);
    const claimed = await prisma.user.updateMany({
      where: { id: userId, OR: [{ factsLearnedAt: null }, { factsLearnedAt: { lte: windowStart } }] },
      data: { factsLearnedAt: now },
    });
    if (claimed.count === 0) return { kind: 'window' };

    const known = await prisma.fact.findMany({ where: { userId }, select: { subject: true }, take: 100 });
    const subjects = [...new Set(known.flatMap((fact) => (fact.subject ? [fact.subject] : [])))];
    const numbered = readable.map((message, index) => `${index + 1}. ${message.content.trim().slice(0, MAX_MESSAGE_CHARS)}`).join('\n');
    const prompt = `${subjects.length > 0 ? `<known_subjects>${subjects.join(', ')}</known_subjects>\n` : ''}<messages>\n${numbered}\n</messages>`;
    const request = { ...roleRequest(this.deps.role), effort: 'low' as const };
    let response;
    try {
      response = await this.deps.model.generate({
        ...request,
        system: LEARNING_SYSTEM,
        messages: [{ role: 'user', content: prompt }],
        tools: [PROPOSE_TOOL],
        toolChoice: { type: 'tool', name: PROPOSE_TOOL.name },
        maxTokens: 1_500,
        purpose: 'fact-learning',
      });
    } catch (error) {
      // The window stays claimed: the retry comes in the next window, not at once.
      logger.warn({ event: 'learning_failed', error: describeError(error) }, 'fact learning: the model call failed');
      throw error;
    }
    const costUsd = roundUsd(costOfUsage(response.model, response.usage));
    await this.recordCost(userId, response.model, response.usage, costUsd);
    await prisma.user.update({ where: { id: userId }, data: { factsLearnedThrough: through } });

    const proposals = readProposals(toolCallsOf(response).find((call) => call.name === PROPOSE_TOOL.name)?.input ?? parseJson(responseText(response)));
    if (!proposals) {
      logger.warn({ event: 'learning_unreadable' }, 'fact learning: the model answered something that is not a list of facts; nothing stored');
      return { kind: 'unreadable', costUsd };
    }
    const kept: ProposedFact[] = [];
    let dropped = proposals.invalid;
    for (const proposal of proposals.valid) {
      const source = readable[proposal.message - 1];
      const keep =
        source !== undefined &&
        proposal.category !== 'one_off' &&
        (!SPECIAL_CATEGORIES.has(proposal.category) || askedToRemember(source.content)) &&
        kept.length < MAX_FACTS_PER_PASS;
      if (keep) kept.push(proposal);
      else dropped += 1;
    }
    let stored = 0;
    const dates: LearnedDate[] = [];
    for (const proposal of kept) {
      const source = readable[proposal.message - 1]!;
      const saved = await this.deps.facts.remember(
        userId,
        { category: storedCategory(proposal), subject: proposal.subject, content: proposal.content },
        undefined,
        { learned: true, sourceMessageId: source.id },
      );
      if (saved.effect !== 'unchanged') stored += 1;
      if (proposal.date && saved.fact.learned && saved.effect !== 'unchanged') dates.push({ ...proposal.date, factId: saved.fact.id });
    }
    logger.info({ event: 'learning_pass', messages: readable.length, proposed: proposals.valid.length + proposals.invalid, stored, dropped, costUsd }, 'fact learning pass');
    await this.offerDates(userId, dates).catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not offer a reminder for a learned date'));
    return { kind: 'learned', proposed: proposals.valid.length + proposals.invalid, stored, dropped, costUsd };
  }

  /**
   * Offers a reminder for the first important date not offered before: one just learned, else
   * a birthday of a contact the user told Herald about. Quiet hours hold it: a job asks again when they end.
   */
  async offerDates(userId: string, learned: LearnedDate[]): Promise<void> {
    const offers = this.deps.offers;
    if (!offers) return;
    const dates = [...learned, ...(await offers.contactDates(userId))];
    if (dates.length === 0) return;
    const outcome = await offers.offer(userId, dates);
    if (outcome.kind === 'held') {
      await this.deps.queue.enqueue(LEARNING_QUEUE, { userId, dates: learned } satisfies LearningJobData, { startAfter: outcome.until, singletonKey: `offer:${userId}` });
    }
  }

  /** The pass's cost, on the user's day like a turn's (the budget sums turns) and the deployment's. */
  private async recordCost(userId: string, model: string, usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }, costUsd: number): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.prisma.$transaction(async (transaction) => {
      await transaction.turn.create({
        data: {
          userId,
          status: 'succeeded',
          modelCalls: 1,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          cacheReadTokens: usage.cacheReadTokens,
          cacheWriteTokens: usage.cacheWriteTokens,
          costUsd,
          models: [{ model, calls: 1, ...usage, costUsd, purpose: 'fact-learning' }],
          startedAt: now,
          finishedAt: now,
        },
      });
      await this.deps.budgets.recordSpend(transaction, costUsd);
    });
  }
}

/** The proposals, each checked on its own; undefined when the output is not a list of facts at all. */
function readProposals(input: unknown): { valid: ProposedFact[]; invalid: number } | undefined {
  const parsed = proposalsSchema.safeParse(input);
  if (!parsed.success) return undefined;
  const valid: ProposedFact[] = [];
  let invalid = 0;
  for (const item of parsed.data.facts) {
    const fact = proposedFactSchema.safeParse(item);
    if (fact.success) valid.push(fact.data);
    else invalid += 1;
  }
  return { valid, invalid };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
