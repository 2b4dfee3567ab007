import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { ContextAssembler } from './context/context-assembler.js';
import { InboundService } from './conversation/inbound-service.js';
import { InboundSpool } from './conversation/inbound-spool.js';
import { openDatabase, sidePool, type Database } from './db/database.js';
import type { Logger } from './logging/logger.js';
import type { ModelClient } from './model/model-client.js';
import { FallbackModel } from './model/fallback-model.js';
import { ActionRunner } from './questions/action-runner.js';
import { ConversationSubjects } from './conversation/conversation-subject.js';
import { PendingQuestions } from './questions/pending-questions.js';
import { loadLanguageDetector } from './texts/text-language.js';
import { keywordAnswer } from './turns/answers/keyword-answer.js';
import { optedOutAnswer } from './turns/answers/opted-out-answer.js';
import { commandAnswer } from './turns/answers/command-answer.js';
import { emptyMessageAnswer } from './turns/answers/empty-message-answer.js';
import { confirmationAnswer } from './turns/answers/confirmation-answer.js';
import { choiceAnswer } from './turns/answers/choice-answer.js';
import { zoneQuestionAnswer } from './turns/answers/zone-question-answer.js';
import { SET_TIMEZONE_ACTION, setTimezoneTool, WaitingMessages } from './timezones/set-timezone-action.js';
import { ZoneStatement } from './timezones/zone-statement.js';
import { reminderReplyAnswer } from './turns/answers/reminder-reply-answer.js';
import { orchestrate, type OrchestratorDependencies } from './orchestrator/orchestrate.js';
import { checkLightPlannerAgents } from './orchestrator/planner-choice.js';
import { PrismaPlanStore } from './orchestrator/plan-store.js';
import { PrismaToolCallKeys } from './tool-calls/tool-call-keys.js';
import { FactService } from './memory/fact-service.js';
import { FactLearner, LEARNING_QUEUE, learningQueueDefinition, type LearningJobData } from './learning/fact-learner.js';
import { QuietHours } from './users/quiet-hours.js';
import { DateOffers } from './learning/date-offers.js';
import { MOVE_REMINDERS_ACTION, ReminderTravel } from './reminders/reminder-travel.js';
import { TravelReturn } from './reminders/travel-return.js';
import { TRAVEL_RETURN_QUEUE, travelReturnQueueDefinition, type TravelReturnJobData } from './reminders/travel-queue.js';
import { TravelTrips } from './reminders/travel-trips.js';
import { memoryAnswer } from './turns/answers/memory-answer.js';
import { quietHoursAnswer } from './turns/answers/quiet-hours-answer.js';
import { ListService } from './lists/list-service.js';
import { ReminderDelivery } from './reminders/reminder-delivery.js';
import { REMINDER_QUEUE, reminderQueueDefinition, type ReminderJobData } from './reminders/reminder-queue.js';
import { ReminderService } from './reminders/reminder-service.js';
import { RoutineService } from './routines/routine-service.js';
import { HeldRoutineRuns } from './routines/held-routine-runs.js';
import { ROUTINE_QUEUE, routineQueueDefinition, type RoutineJobData } from './routines/routine-queue.js';
import { RoutineRunner } from './turns/routine-run.js';
import { routinesForm } from './routines/routines-form.js';
import { routinesPageAnswer } from './turns/answers/routines-page-answer.js';
import type { MessageTransport } from './outbox/message-transport.js';
import { OutboxService } from './outbox/outbox-service.js';
import { tapAnswer } from './turns/answers/tap-answer.js';
import { JobQueue } from './queue/job-queue.js';
import { systemClock, type Clock } from './shared/clock.js';
import { randomIds, type IdGenerator } from './shared/ids.js';
import { describeError } from './shared/errors.js';
import { TurnLeases } from './turns/turn-lease.js';
import { LeaseHeartbeat } from './turns/lease-heartbeat.js';
import { TurnRecovery } from './turns/turn-recovery.js';
import { TurnRunner } from './turns/turn-runner.js';
import { TURN_QUEUE, TurnScheduler, turnQueueDefinition, type TurnJobData } from './queue/turn-queue.js';
import { TurnWorker } from './turns/turn-worker.js';
import { UserService } from './users/user-service.js';
import { DEFAULT_HERALD_NUMBER } from './dev/dev-webhook.js';
import { feedingTransport, OutboundFeed } from './dev/outbound-feed.js';
import { FormRegistry } from './pages/form-definition.js';
import { PageService } from './pages/page-service.js';
import { PageStore } from './pages/page-store.js';
import { profileForm } from './users/profile-form.js';
import { createHeraldAgents } from './agents/herald-agents.js';
import { createCalendarModule, type CalendarModule } from './modules/calendar-module.js';
import { createEmailModule, type EmailModule } from './modules/email-module.js';
import { createBrainModule, type BrainModule } from './modules/brain-module.js';
import { createContactsModule, type ContactsModule } from './modules/contacts-module.js';
import { AddressBookImport } from './contacts/address-book-import.js';
import { GoogleContacts } from './contacts/google-contacts.js';
import { createHmac } from 'node:crypto';
import { AccessGate } from './access/access-gate.js';
import { AccessService } from './access/access-service.js';
import { AdminCommands } from './access/admin-commands.js';
import { HELD_NOTICE_QUEUE, heldNoticeQueueDefinition, SystemTexts, type HeldNoticeJobData } from './access/system-texts.js';
import { BudgetGuard } from './budgets/budget-guard.js';
import { resolveEncryptionKey } from './connections/encryption-key.js';
import { DataRights, ERASE_ACTION } from './data-rights/data-rights.js';
import { MyDataPage } from './data-rights/my-data-page.js';
import { DataExport } from './data-rights/data-export.js';
import { UserEraser } from './data-rights/user-eraser.js';
import { HeraldCommands } from './turns/turn-commands.js';
import { AllowedHosts } from './net/allowed-hosts.js';
import { OutboundPolicy, type HostResolver } from './net/outbound-policy.js';
import { createMetrics, noopMetrics, type HeraldMetrics } from './observability/metrics.js';
import { databaseGauges } from './observability/scrape-gauges.js';
import { startTracing, type Tracing } from './observability/tracing.js';
import { observedModel } from './observability/observed-model.js';
import { tracedRegistry } from './agents/traced-agents.js';
import { TurnObserver } from './turns/turn-observer.js';
import { RateLimitPatience } from './model/rate-limit-patience.js';
import { PromptCachePolicy, PromptCacheTtlModel } from './model/prompt-cache-policy.js';
import { LongReplies } from './turns/long-replies.js';
import { parseTwilioAddress } from './channels/phone-number.js';
import { createMediaModule } from './modules/media-module.js';
import { TIMEZONE_FROM_PIN_ACTION } from './media/location.js';
import { DevMediaStore } from './dev/dev-media-store.js';
import { createModel, createTransport, twilioExtras } from './runtime-clients.js';
import { withoutTrailingSlashes } from './shared/text-ends.js';

/** Ways to build Herald with some parts replaced (tests, benchmarks). */
export interface HeraldOptions {
  config: Config;
  logger: Logger;
  /** An open, migrated database; when absent one is opened from the config. */
  database?: Database;
  clock?: Clock;
  ids?: IdGenerator;
  model?: ModelClient;
  transport?: MessageTransport;
  /** Waits between outbox retries (tests shorten them). */
  sleep?: (milliseconds: number) => Promise<void>;
  /** How often orphaned work is looked for; 0 disables the periodic sweep. */
  recoveryIntervalMs?: number;
  /** How often lapsed turn leases are taken over (default TURN_LEASE_SWEEP_MS); 0 disables it. */
  leaseSweepIntervalMs?: number;
  /** Turn worker polling interval (seconds). */
  pollingIntervalSeconds?: number;
  /** Resolves the host names of servers users connect (tests map names to addresses); default the system's. */
  resolver?: HostResolver;
  /** Metrics to record into (tests read their own registry); default: a registry when METRICS_TOKEN is set, else none. */
  metrics?: HeraldMetrics;
  /** Tracing to use; default: OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none. */
  tracing?: Tracing;
  /** How the second brain's search runs and reaches the embeddings service (tests of its fallbacks). */
  brain?: Pick<Parameters<typeof createBrainModule>[0], 'capabilities' | 'fetch'>;
}

/** A wired Herald: the HTTP app plus the workers behind it. */
export interface Herald {
  app: FastifyInstance;
  database: Database;
  queue: JobQueue;
  outbox: OutboxService;
  users: UserService;
  reminders: ReminderService;
  reminderDelivery: ReminderDelivery;
  /** Routines: the store and the runs (src/routines, src/turns/routine-run.ts). */
  routines: RoutineService;
  routineRunner: RoutineRunner;
  lists: ListService;
  pages: PageService;
  /** The calendar, connections, connect links and the calendar feed. */
  calendar: CalendarModule;
  /** The user's mailbox (IMAP/SMTP, Gmail) and email-agent. */
  email: EmailModule;
  /** Notes and the search over notes and facts. */
  brain: BrainModule;
  /** The people in the user's life, and contacts-agent. */
  contacts: ContactsModule;
  /** Who may use Herald: the invite list and invite codes. */
  access: AccessService;
  /** MY DATA pages and DELETE MY DATA. */
  eraser: UserEraser;
  /** The questions Herald is waiting on (confirmations, choices, clarifications). */
  questions: PendingQuestions;
  /** Local mode only: what the console transport sent, per number (the dev phone listens). */
  outboundFeed: OutboundFeed | undefined;
  recovery: TurnRecovery;
  worker: TurnWorker;
  /** Prometheus metrics (a no-op without METRICS_TOKEN). */
  metrics: HeraldMetrics;
  /** Webhooks the database could not take, kept on disk and replayed (src/conversation/inbound-spool.ts). */
  spool: InboundSpool;
  /** Background fact learning (src/learning): its job's handler is `learn`. */
  learning: FactLearner;
  /** Each user's quiet hours (src/users/quiet-hours.ts). */
  quietHours: QuietHours;
  /** Trips with a return date (src/reminders/travel-trips.ts) and their return job (`travelReturn.run`). */
  trips: TravelTrips;
  travelReturn: TravelReturn;
  /** Starts the queue, the turn workers and recovery (does not listen). */
  start(): Promise<void>;
  /** Stops taking work, lets turns in flight finish for `graceMs`, then interrupts the rest. */
  stop(graceMs?: number): Promise<void>;
}

/** The composition root: builds every service from configuration and wires them together. */
export async function createHerald(options: HeraldOptions): Promise<Herald> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const database =
    options.database ??
    (await openDatabase(
      {
        url: config.database.url,
        dataDir: config.database.dataDir,
        poolSize: config.database.poolSize,
        connectTimeoutMs: config.database.connectTimeoutMs,
        connectionWaitMs: config.database.connectionWaitMs,
      },
      logger,
    ));
  const { prisma } = database;

  // Observability: metrics when METRICS_TOKEN is set, traces when an OTLP endpoint is; without
  // them both are no-ops and no OpenTelemetry module is loaded.
  // eslint-disable-next-line prefer-const -- assigned once below; the metrics gauge made before it reads it
  let worker: TurnWorker | undefined;
  const metrics =
    options.metrics ?? (config.observability.metricsToken ? createMetrics({ gauges: databaseGauges(database.pool, () => worker?.activeCount ?? 0), dailyBudgetUsd: config.budgets.dailyUsd }) : noopMetrics);
  const tracing = options.tracing ?? (await startTracing(config.observability.tracing, logger));
  const turnObserver = new TurnObserver(metrics, tracing, async (turnId) => {
    const row = await prisma.message.findFirst({ where: { turnId, traceContext: { not: null } }, select: { traceContext: true } });
    return row?.traceContext ?? undefined;
  });

  // Each role's fallback models are tried when its model is unavailable (after the SDK's retries);
  // when every one is rate limited, the call waits for the limit to lift instead of failing.
  const model = new RateLimitPatience(
    new FallbackModel(
      // Each stable prompt prefix is cached for as long as its measured pace makes cheapest.
      new PromptCacheTtlModel(observedModel(options.model ?? createModel(config, logger, metrics), metrics, tracing), new PromptCachePolicy(() => clock.now().getTime())),
      logger.child({ component: 'model' }),
    ),
    { onWait: (name, milliseconds) => metrics.modelRateLimitWait(name, milliseconds / 1000) },
  );
  // Local mode (no Twilio): what is "sent" also goes to the dev phone and `npm run chat`.
  const outboundFeed = config.twilio.transport === 'console' ? new OutboundFeed() : undefined;
  const baseTransport = options.transport ?? createTransport(config, logger);
  const transport = outboundFeed ? feedingTransport(baseTransport, outboundFeed, () => clock.now()) : baseTransport;
  const queue = new JobQueue(database.pool, logger.child({ component: 'queue' }));
  const scheduler = new TurnScheduler(queue);
  const users = new UserService(prisma, clock);
  // A send in flight longer than Twilio's own timeout plus a margin was lost with its
  // process: its claim lapses and another sender may try again.
  const dispatchClaimMs = config.twilio.timeoutMs + 15_000;
  const extras = twilioExtras(config, prisma, clock, logger);
  const outbox = new OutboxService({
    dispatchClaimMs,
    prisma,
    pool: database.pool,
    transport,
    users,
    clock,
    ids,
    logger: logger.child({ component: 'outbox' }),
    policy: { retryForMs: config.outbox.retryForMs, baseDelayMs: config.outbox.retryBaseMs, maxDelayMs: config.outbox.retryMaxMs },
    lateNoteAfterMs: config.outbox.lateNoteAfterMs,
    // A reminder, routine run or notice that has to wait for Twilio is the user's drain's to send, in order.
    onHandBack: (userId, at) => scheduler.schedule(userId, { startAfter: at }),
    senders: { sms: config.twilio.smsFrom, whatsapp: config.twilio.whatsappFrom, rcs: config.twilio.messagingServiceSid },
    smsMaxSegments: config.outbox.smsMaxSegments,
    statusCallbackUrl: transport.name === 'twilio' ? `${withoutTrailingSlashes(config.http.publicBaseUrl)}/twilio/status` : undefined,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    onSend: (event) => turnObserver.sent(event),
    onContentRefused: (contentSid) => void extras.shapes?.forget(contentSid),
  });
  const assembler = new ContextAssembler(prisma, users, clock, config.history, config.turns.maxMessageTokens);
  const brain = await createBrainModule({ config, database, clock, logger, ...options.brain });
  const facts = new FactService(prisma, database.pool, clock, brain.similarFacts);
  const reminders = new ReminderService(prisma, queue, clock, {
    maxTextLength: config.reminders.maxTextLength,
    maxActivePerUser: config.reminders.maxActivePerUser,
  });
  const reminderDelivery = new ReminderDelivery(prisma, database.pool, reminders, outbox, clock, logger.child({ component: 'reminders' }), {
    lateAfterMs: config.reminders.lateAfterMs,
    maxLatenessMs: config.reminders.maxLatenessMs,
    whatsappTemplateSid: config.twilio.whatsappReminderContentSid,
    recheckAfterMs: dispatchClaimMs + 5_000,
    access: { mode: config.access.mode, ownerPhones: config.access.ownerPhones },
  });
  const routines = new RoutineService(prisma, queue, clock, { maxPerUser: config.routines.maxPerUser, maxInstructionLength: config.routines.maxInstructionLength });
  const travel = new ReminderTravel(prisma, reminders, routines);
  const lists = new ListService(prisma, clock);
  const pages = new PageService(
    new PageStore(prisma, logger.child({ component: 'pages' })),
    lists,
    new FormRegistry([profileForm(users), routinesForm(routines)]),
    clock,
    { ttlHours: config.pages.ttlHours, publicBaseUrl: config.http.linkBaseUrl },
    logger.child({ component: 'pages' }),
  );
  // The one rule for every server a user points Herald at (CalDAV, IMAP, SMTP): src/net.
  const outbound = new OutboundPolicy({ allowedHosts: new AllowedHosts(config.connections.allowedHosts), resolver: options.resolver, logger: logger.child({ component: 'outbound' }) });
  const contacts = createContactsModule({ config, prisma, clock });
  // The CalDAV connect page offers the same server's contacts; the importer needs the calendar's connections, so it is made just after.
  // eslint-disable-next-line prefer-const -- assigned once below; the calendar module made before it reads it
  let addressBooks: AddressBookImport | undefined;
  const calendar = await createCalendarModule({ config, prisma, reminders, outbound, clock, ids, logger, pages, contactLookup: contacts.lookup, people: contacts.contacts, serverContacts: () => (addressBooks ? (userId) => addressBooks!.fromCalendarServer(userId) : undefined) });
  addressBooks = new AddressBookImport({ contacts: contacts.contacts, connections: calendar.connections, outbound, timeoutMs: config.connections.timeoutMs, logger: logger.child({ component: 'contacts' }) });
  const email = createEmailModule({ config, connections: calendar.connections, links: calendar.links, connect: calendar.connect, google: calendar.google, outbound, clock, ids, logger, contactLookup: contacts.lookup, people: contacts.contacts });
  // Google Contacts (contacts.readonly), asked for only when the user connects their contacts.
  const googleContacts =
    calendar.google && config.connections.google
      ? new GoogleContacts({ contacts: contacts.contacts, google: calendar.google, apiBaseUrl: config.connections.google.apiBaseUrl, logger: logger.child({ component: 'contacts' }) })
      : undefined;
  if (googleContacts) calendar.connect.add([googleContacts.connectMethod(calendar.links)]);
  const access = new AccessService(prisma, clock, config.access);
  if (config.access.mode === 'invite' && config.access.ownerPhones.length === 0) {
    logger.warn('ACCESS_MODE is invite but OWNER_PHONES is empty: only numbers allowed with `npm run accounts -- allow` can use Herald');
  }
  if (config.access.mode === 'invite') {
    // Users who came in while the deployment was open would silently become strangers.
    const locked = await access.usersWithoutAccess();
    if (locked > 0) logger.warn({ users: locked }, 'ACCESS_MODE is invite and some users are not on the invite list (they are now treated as strangers): `npm run accounts -- allow --existing` lets them back in');
  }
  // Strangers are remembered only as a keyed hash of their number, keyed from HERALD_ENCRYPTION_KEY.
  const strangerHashKey = createHmac('sha256', await resolveEncryptionKey(config.connections.encryptionKey, config.database.dataDir, logger)).update('herald stranger notice').digest();
  const gate = new AccessGate(database.pool, access, clock, strangerHashKey, logger.child({ component: 'access' }));
  const inbound = new InboundService(database.pool, clock, config.defaultTimezone, logger.child({ component: 'inbound' }), gate);
  // While the database is away, webhooks are kept on disk and answered; replayed through `inbound` below.
  const spool = new InboundSpool({ ...config.inboundSpool, clock, logger: logger.child({ component: 'inbound-spool' }), metrics });
  const quietHours = new QuietHours(config.quietHours);
  const travelReturn = new TravelReturn({ prisma, queue, reminders, routines, outbox, scheduler, quietHours, clock, logger: logger.child({ component: 'travel' }) });
  const trips = new TravelTrips(prisma, users, travelReturn, clock);
  const systemTexts = new SystemTexts(prisma, outbox, scheduler, clock, config.defaultTimezone, logger.child({ component: 'access' }), { hours: quietHours, queue });
  const eraser = new UserEraser(prisma, clock, logger.child({ component: 'data-rights' }), { grants: calendar.google ? [calendar.google] : [] });
  const exportKey = createHmac('sha256', await resolveEncryptionKey(config.connections.encryptionKey, config.database.dataDir, logger)).update('herald data export').digest();
  const dataExport = new DataExport(prisma, exportKey, clock, { ttlHours: config.pages.ttlHours, publicBaseUrl: config.http.linkBaseUrl });
  const dataRights = new DataRights(new MyDataPage(prisma, clock, dataExport), pages, eraser, config.limits.confirmationTtlMs, logger.child({ component: 'data-rights' }));
  // Local mode: files attached in the dev phone are served by Herald's own Twilio-like media API.
  const devMedia = outboundFeed ? new DevMediaStore(() => clock.now().getTime()) : undefined;
  // eslint-disable-next-line prefer-const -- assigned once the app is built; the media module made before it reads it
  let server: FastifyInstance | undefined;
  const media = createMediaModule({
    config,
    prisma,
    users,
    clock,
    logger,
    // Every download hop (Twilio's API, its redirect to the media store) goes through src/net.
    outbound,
    // A vCard sent as an attachment: its contacts imported, up to CONTACTS_MAX_PER_USER.
    cards: { import: (userId, text) => contacts.contacts.importVcards(userId, text, { source: 'vcard' }), maxPerUser: config.brain.maxContactsPerUser },
    dev: devMedia ? { store: devMedia, origin: () => listeningOrigin(server) } : undefined,
  });
  const orchestratorDeps: OrchestratorDependencies = {
    model,
    models: config.models,
    // Each agent's prompt budget (CTX-6) comes from configuration (AGENT_PROMPT_TOKENS).
    registry: tracedRegistry(
      createHeraldAgents(
        {
          reminders,
          routines,
          lists,
          facts,
          users,
          pages,
          calendar,
          email,
          brain,
          trips,
          contacts: {
            agent: contacts.agentWith(
              addressBooks,
              googleContacts ? { google: googleContacts, links: calendar.links, connections: calendar.connections } : undefined,
            ),
          },
        },
        config.limits.agentPromptTokens,
      ),
      tracing,
    ),
    store: new PrismaPlanStore(prisma),
    toolCallKeys: new PrismaToolCallKeys(prisma),
    clock,
    ids,
    logger: logger.child({ component: 'orchestrator' }),
    limits: config.limits,
    tracing,
    onPlanned: (planner) => metrics.plan(planner),
    webSearch: config.webSearch,
  };
  checkLightPlannerAgents(config.models, orchestratorDeps.registry);
  // Messages that waited for the zone question (src/timezones).
  const waitingForZone = new WaitingMessages(prisma);
  // A held action names its agent and tool; YES (or a pick from "Which one?") runs that tool with the stored arguments.
  const actions = new ActionRunner(
    (agent, tool) =>
      agent === ERASE_ACTION.agent && tool === ERASE_ACTION.tool
        ? dataRights.eraseTool
        : agent === TIMEZONE_FROM_PIN_ACTION.agent && tool === TIMEZONE_FROM_PIN_ACTION.tool
          ? media.timezoneTool
          : agent === MOVE_REMINDERS_ACTION.agent && tool === MOVE_REMINDERS_ACTION.tool
            ? travel.moveTool()
            : agent === SET_TIMEZONE_ACTION.agent && tool === SET_TIMEZONE_ACTION.tool
              ? setTimezoneTool(waitingForZone, users)
              : orchestratorDeps.registry.get(agent)?.tools.find((candidate) => candidate.name === tool),
    clock,
    logger.child({ component: 'confirmations' }),
  );
  const questions = new PendingQuestions(prisma, clock, ids, config.limits.confirmationTtlMs, (kind, outcome) => metrics.question(kind, outcome));
  const subjects = new ConversationSubjects(prisma, clock, config.reminders.replyWindowMs);
  // Fixed texts follow the language a message is written in; the detector loads once, here.
  await loadLanguageDetector();
  const budgetGuard = new BudgetGuard(
    prisma,
    clock,
    { userDailyUsd: config.budgets.userDailyUsd, dailyUsd: config.budgets.dailyUsd, deploymentTimezone: config.defaultTimezone },
    logger.child({ component: 'budgets' }),
  );
  const learning = new FactLearner({
    prisma,
    facts,
    model,
    role: config.models.agent,
    budgets: budgetGuard,
    queue,
    clock,
    logger: logger.child({ component: 'learning' }),
    settings: config.learning,
    offers: new DateOffers({ prisma, outbox, questions, scheduler, quietHours, clock, logger: logger.child({ component: 'learning' }) }),
    metrics,
  });
  const runner = new TurnRunner({
    questions,
    subjects,
    // The answers that need no model, in order (src/turns/answers); the orchestrator answers the rest.
    answers: [
      keywordAnswer({ users, questions }),
      optedOutAnswer,
      commandAnswer,
      emptyMessageAnswer,
      tapAnswer({ prisma, questions, confirmation: confirmationAnswer({ questions, runner: actions, clock }), choice: choiceAnswer({ questions, runner: actions }) }),
      confirmationAnswer({ questions, runner: actions, clock }),
      zoneQuestionAnswer({ questions, waiting: waitingForZone, clock }),
      choiceAnswer({ questions, runner: actions }),
      reminderReplyAnswer({ subjects, reminders, clock, snoozeMinutes: config.reminders.snoozeMinutes }),
      memoryAnswer({ facts, learning, clock }),
      quietHoursAnswer({ users, quietHours }),
      routinesPageAnswer({ routines, pages }),
    ],
    prisma,
    users,
    outbox,
    assembler,
    orchestrate: (context, runOptions) => orchestrate(context, orchestratorDeps, runOptions),
    commands: new HeraldCommands(access, new AdminCommands(access, systemTexts, clock), dataRights),
    budgets: {
      guard: budgetGuard,
      async notifyOwners(text) {
        for (const phone of config.access.ownerPhones) await systemTexts.send(phone, text, 'budget alert');
      },
    },
    media: media.turnMedia,
    clock,
    logger: logger.child({ component: 'turn' }),
    tracing,
    onTurnEnd: (event) => turnObserver.turnEnded(event),
    quietHours,
    zoneStatement: new ZoneStatement(prisma),
    travel,
    learning,
    longReplies: new LongReplies(pages, config.outbox.smsMaxSegments, logger.child({ component: 'turn' })),
    ...(extras.oneTap ? { oneTap: extras.oneTap } : {}),
    ...(extras.typing ? { typing: extras.typing } : {}),
    heldRoutineRuns: new HeldRoutineRuns({ routines, logger: logger.child({ component: 'routines' }), onDropped: () => metrics.routineRun('undeliverable') }),
  });
  // One renewal statement per beat for every lease this instance holds, on a connection of its own.
  const heartbeat = new LeaseHeartbeat(sidePool(database.url), config.turns.leaseMs, logger.child({ component: 'turn-lease' }));
  worker = new TurnWorker({
    leases: new TurnLeases(prisma),
    heartbeat,
    runner,
    outbox,
    scheduler,
    ids,
    logger: logger.child({ component: 'turn-worker' }),
    // Short and renewed by heartbeat: a dead holder's lease lapses within seconds, and the
    // lapsed-lease sweep below hands its users to a live instance.
    leaseMs: config.turns.leaseMs,
  });
  const turnWorker = worker;
  const routineRunner = new RoutineRunner({
    prisma,
    routines,
    leases: new TurnLeases(prisma),
    heartbeat,
    leaseMs: config.turns.leaseMs,
    assembler,
    // A run is a turn with its own, smaller cap on model calls (ROUTINE_MAX_MODEL_CALLS).
    orchestrate: (context, runOptions) => orchestrate(context, { ...orchestratorDeps, limits: { ...orchestratorDeps.limits, turnMaxModelCalls: config.routines.maxModelCalls } }, runOptions),
    outbox,
    scheduler,
    quietHours,
    budgets: budgetGuard,
    longReplies: new LongReplies(pages, config.outbox.smsMaxSegments, logger.child({ component: 'routines' })),
    clock,
    ids,
    logger: logger.child({ component: 'routines' }),
    policy: { maxLatenessMs: config.routines.maxLatenessMs, whatsappTemplateSid: config.twilio.whatsappRoutineContentSid, access: { mode: config.access.mode, ownerPhones: config.access.ownerPhones } },
    onRunEnd: (event) => metrics.routineRun(event.status),
  });
  const recovery = new TurnRecovery(prisma, scheduler, clock, logger.child({ component: 'recovery' }));

  const app = await buildApp({
    logger,
    http: config.http,
    twilioAuthToken: config.twilio.authToken,
    inbound: spool.guard({
      async receive(delivery) {
        const channel = parseTwilioAddress(delivery.webhook.From)?.channel ?? 'unknown';
        const outcome = await tracing.span('herald.webhook', { kind: 'server', parent: null, attributes: { 'herald.channel': channel } }, async (span) => {
          const received = await inbound.receive({ ...delivery, traceContext: span.traceparent });
          span.setAttributes({ 'herald.webhook.outcome': received.kind, 'herald.webhook.deferred': Boolean(delivery.deferTurnUntil) });
          return received;
        });
        metrics.webhookMessage(channel, outcome.kind === 'accepted' ? 'stored' : outcome.kind);
        if (outcome.kind === 'refused') metrics.turn('refused_access');
        if (outcome.kind !== 'accepted') return outcome;
        if (delivery.deferTurnUntil) {
          // Stored without a job (a sender over the rate limit): its turn comes when the window
          // ends. Should this fail, the message is pending and the recovery sweep finds it.
          await scheduler
            .schedule(outcome.userId, { startAfter: delivery.deferTurnUntil })
            .catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not schedule a deferred turn; recovery will'));
        } else scheduler.wake();
        return outcome;
      },
    }),
    statusCallbacks: outbox,
    pages,
    exports: dataExport,
    connect: { connect: calendar.connect, calendarFeed: calendar.feed, secureCookies: config.http.linkBaseUrl.startsWith('https:') },
    ...(outboundFeed && devMedia
      ? { devPhone: { feed: outboundFeed, heraldNumber: config.twilio.smsFrom ?? DEFAULT_HERALD_NUMBER, media: devMedia, mediaMaxBytes: config.media.maxBytes } }
      : {}),
    metrics: { registry: metrics, token: config.observability.metricsToken },
    readiness: async () => {
      const [databaseUp, queueUp] = await Promise.all([
        prisma.$queryRaw`SELECT 1`.then(() => true, () => false),
        queue.isHealthy(),
      ]);
      return { database: databaseUp, queue: queueUp };
    },
  });

  server = app;

  let recoveryTimer: NodeJS.Timeout | undefined;
  let leaseSweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  // Every instance sweeps; the takeover's row locks make each lapsed lease one instance's.
  const sweepLapsedLeases = () => {
    if (sweeping) return; // the last sweep is still running (a slow database)
    sweeping = recovery
      .takeOverLapsedLeases()
      .then(
        (taken) => metrics.leaseTakeovers(taken.length),
        (error: unknown) => logger.warn({ error: describeError(error) }, 'lapsed-lease sweep failed'),
      )
      .finally(() => (sweeping = undefined));
  };
  const recoverRoutines = async () => {
    const recovered = await routines.recoverOverdue();
    if (recovered > 0) logger.warn({ routines: recovered }, 'overdue routine runs that were never claimed: their jobs were enqueued again');
  };
  const recoverTrips = async () => {
    const recovered = await travelReturn.recoverOverdue();
    if (recovered > 0) logger.warn({ trips: recovered }, 'overdue trip returns: their jobs were enqueued again');
  };
  return {
    app,
    database,
    queue,
    outbox,
    users,
    reminders,
    reminderDelivery,
    routines,
    routineRunner,
    lists,
    pages,
    calendar,
    email,
    brain,
    contacts,
    access,
    eraser,
    questions,
    outboundFeed,
    recovery,
    worker: turnWorker,
    metrics,
    spool,
    learning,
    quietHours,
    trips,
    travelReturn,
    async start() {
      await queue.start([turnQueueDefinition(config.limits.planTimeoutMs), reminderQueueDefinition, routineQueueDefinition(config.limits.planTimeoutMs), learningQueueDefinition, heldNoticeQueueDefinition, travelReturnQueueDefinition]);
      // Each of the many turn workers polls less often, so that together they look about eight
      // times per polling interval whatever TURN_CONCURRENCY is (work that arrives here wakes
      // an idle one at once; polling finds only work from elsewhere: retries, other instances).
      await queue.work<TurnJobData>(
        TURN_QUEUE,
        { concurrency: config.turns.concurrency, pollingIntervalSeconds: (options.pollingIntervalSeconds ?? 1) * Math.max(1, config.turns.concurrency / 8) },
        (job) => turnWorker.drain(job.data.userId, job.id),
      );
      await queue.work<ReminderJobData>(
        REMINDER_QUEUE,
        { concurrency: config.reminders.concurrency, batchSize: config.reminders.batchSize, pollingIntervalSeconds: options.pollingIntervalSeconds ?? 0.5 },
        async (job) => {
          const delivered = await reminderDelivery.deliver(job.data);
          // Lateness as the person sees it: from the time set to the text handed to Twilio.
          if (delivered.kind === 'handled' && !delivered.duplicate && (delivered.status === 'sent' || delivered.status === 'late')) {
            metrics.reminderLateness((clock.now().getTime() - new Date(job.data.dueAt).getTime()) / 1000);
          }
        },
      );
      await queue.work<LearningJobData>(LEARNING_QUEUE, { concurrency: 1, pollingIntervalSeconds: Math.max(options.pollingIntervalSeconds ?? 1, 1) }, async (job) => {
        if (job.data.dates) await learning.offerDates(job.data.userId, job.data.dates);
        else await learning.learn(job.data.userId);
      });
      await queue.work<HeldNoticeJobData>(HELD_NOTICE_QUEUE, { concurrency: 1, pollingIntervalSeconds: Math.max(options.pollingIntervalSeconds ?? 1, 1) }, async (job) => {
        await systemTexts.send(job.data.phone, job.data.text, job.data.purpose);
      });
      await queue.work<RoutineJobData>(
        ROUTINE_QUEUE,
        { concurrency: config.routines.concurrency, pollingIntervalSeconds: options.pollingIntervalSeconds ?? 0.5 },
        async (job) => void (await routineRunner.run(job.data)),
      );
      await queue.work<TravelReturnJobData>(TRAVEL_RETURN_QUEUE, { concurrency: 1, pollingIntervalSeconds: Math.max(options.pollingIntervalSeconds ?? 1, 1) }, async (job) => {
        await travelReturn.run(job.data);
      });
      metrics.leaseTakeovers((await recovery.takeOverLapsedLeases()).length);
      await recovery.closeAbandonedTurns();
      await recovery.recover();
      await reminderDelivery.recoverOverdue();
      await recoverRoutines();
      await recoverTrips();
      // What an earlier process spooled while the database was away (and what this one spools later).
      await spool.start();
      const sweepInterval = options.leaseSweepIntervalMs ?? config.turns.leaseSweepMs;
      if (sweepInterval > 0) {
        leaseSweepTimer = setInterval(sweepLapsedLeases, sweepInterval);
        leaseSweepTimer.unref();
      }
      const interval = options.recoveryIntervalMs ?? 60_000;
      if (interval > 0) {
        recoveryTimer = setInterval(() => {
          recovery.recover(30_000).catch((error: unknown) => logger.warn({ error }, 'recovery sweep failed'));
          reminderDelivery.recoverOverdue(60_000).catch((error: unknown) => logger.warn({ error }, 'reminder recovery sweep failed'));
          recoverRoutines().catch((error: unknown) => logger.warn({ error }, 'routine recovery sweep failed'));
          recoverTrips().catch((error: unknown) => logger.warn({ error }, 'trip return sweep failed'));
        }, interval);
        recoveryTimer.unref();
      }
    },
    async stop(graceMs = 20_000) {
      if (recoveryTimer) clearInterval(recoveryTimer);
      if (leaseSweepTimer) clearInterval(leaseSweepTimer);
      await spool.stop();
      await sweeping;
      const interrupt = setTimeout(() => turnWorker.interruptAll(), graceMs);
      try {
        await queue.stop(graceMs + 5_000);
      } finally {
        clearTimeout(interrupt);
      }
      await heartbeat.close();
      await app.close();
      await email.emails.close();
      // Whatever spans are buffered go out (bounded: a collector that is down cannot hold this up).
      if (!options.tracing) await tracing.shutdown();
      if (!options.database) await database.close();
    },
  };
}

/** This Herald's own origin on the loopback interface, once it listens (the dev phone's media API is there). */
function listeningOrigin(app: FastifyInstance | undefined): string {
  const address = app?.server.address();
  if (!address || typeof address === 'string') throw new Error('the dev media API is reached over HTTP: Herald must be listening');
  return `http://127.0.0.1:${address.port}`;
}
