/**
 * The orchestrator test kit. A typical test:
 *
 *   const model = new ScriptedModel([createPlan([step('s1', 'notes-agent', 'Add a note "milk"')]),
 *     callTool('add_note', { text: 'milk' }), complete({ summary: 'Added', created: [{ description: 'milk' }] }), say('Noted.')]);
 *   const deps = makeDeps({ model, limits: { stepMaxRetries: 0 } });
 *   const result = await orchestrate(makeContext({ text: 'note milk' }), deps);
 *   expect(purposes(model)).toEqual(['planner', 'notes-agent', 'notes-agent', 'composer']);
 *
 * - context.ts: makeContext() — Dana in Los Angeles, two facts and two history messages,
 *   each holding a unique marker string that no sub-agent request may contain.
 * - agents.ts: general-agent, notes-agent (add_note creates; FAIL is refused; HANG saves then
 *   hangs until aborted; touch_note is "unchanged"), lookup-agent (lookup can be empty or,
 *   for "STUCK", never answer; explode throws), over an in-memory TestWorld with a journal.
 * - deps.ts: makeDeps() — InMemoryPlanStore, ManualClock at Wed 2026-01-28 10:30 LA,
 *   SequentialIds, a capturing pino logger (deps.logs.lines) and the design's limits.
 * - script.ts: scripted turns (createPlan, complete, callTool, say, outage, when) and request
 *   inspection (purposes, callsFor, requestText, lastMessageText, toolResultsOf, storeTrail).
 */
export * from './agents.js';
export * from './context.js';
export * from './deps.js';
export * from './script.js';
