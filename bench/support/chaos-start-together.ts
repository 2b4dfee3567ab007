import { rm } from 'node:fs/promises';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../../test/fakes/fake-twilio-server.js';
import { startHeraldProcess, type HeraldProcess } from '../../test/helpers/herald-process.js';
import { heading } from './report.js';
import { lastWords, running } from './chaos-fleet.js';
import { heraldEnvironment, type ChaosContext, type ChaosResult } from './chaos-settings.js';

/**
 * Scenario 7: two, then three, Herald processes started at the same moment on a new, empty
 * database (each migrates it, creates pg-boss's schema and queues), five tries each: how many
 * came up (listening, and still running once every one of the try has listened or exited).
 */
export async function runStartTogether(context: ChaosContext): Promise<ChaosResult> {
  const { settings, benchPostgres, print } = context;
  const tries = Math.max(1, Math.round(5 * Math.min(1, settings.scale)));
  print(heading(`start-together: 2, then 3 instances started at once on a new, empty database; ${tries} tries each`));
  const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  const tallies: Array<{ size: number; up: number; started: number; failures: string[] }> = [];
  try {
    for (const size of [2, 3]) {
      const tally = { size, up: 0, started: 0, failures: [] as string[] };
      tallies.push(tally);
      for (let attempt = 1; attempt <= tries; attempt += 1) {
        const database = await benchPostgres.createDatabase(`chaos_start${size}_${attempt}`);
        const environments = await Promise.all(Array.from({ length: size }, () => heraldEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic })));
        const outcomes = await Promise.allSettled(environments.map((environment) => startHeraldProcess(environment)));
        const instances = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
        const up = instances.filter(running).length;
        tally.started += size;
        tally.up += up;
        for (const outcome of outcomes) if (outcome.status === 'rejected') tally.failures.push(reason(outcome.reason));
        for (const instance of instances) if (!running(instance)) tally.failures.push(`exited after listening: ${lastWords(instance.output)}`);
        print(`  ${size} at once, try ${attempt}: ${up} of ${size} up`);
        await stopAll(instances);
        for (const environment of environments) if (environment.INBOUND_SPOOL_DIR) await rm(environment.INBOUND_SPOOL_DIR, { recursive: true, force: true });
      }
    }
  } finally {
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
  }
  for (const tally of tallies) for (const failure of new Set(tally.failures)) print(`  ${tally.size} at once, a failure: ${failure}`);
  const described = tallies.map((tally) => `${tally.up}/${tally.started} up (${tally.size} at once)`).join(', ');
  return {
    name: 'start-together',
    headline: tallies.map((tally) => `${tally.up}/${tally.started} up (${tally.size} at once)`).join(', '),
    other: `${described}; ${tries} tries each`,
    checks: tallies.map((tally) => ({
      name: `start-together: every instance up, ${tally.size} at once`,
      target: `${tally.started}/${tally.started}`,
      measured: `${tally.up}/${tally.started}`,
      pass: tally.up === tally.started,
      kind: 'correctness',
    })),
  };
}

async function stopAll(instances: HeraldProcess[]): Promise<void> {
  await Promise.all(instances.filter(running).map((instance) => instance.terminate()));
}

/** startHeraldProcess's rejection carries the whole output: its telling line. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message.split('\n');
  return `${lines[0]?.slice(0, 80)} … ${lastWords(lines.slice(1))}`;
}
