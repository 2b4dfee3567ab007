import type { FakeTwilioServer } from '../../test/fakes/fake-twilio-server.js';
import type { StoppablePostgres } from '../../test/helpers/stoppable-postgres.js';
import type { HeraldFleet } from './chaos-fleet.js';
import { pause } from './chaos-settings.js';

/** What a fault acts on. */
interface FaultWorld {
  postgres: StoppablePostgres;
  fakeTwilio: FakeTwilioServer;
  fleet: HeraldFleet;
  /** The fault's scaled duration. */
  faultMs: number;
  scale: number;
  print(line?: string): void;
}

/** A fault in progress. */
interface ActiveFault {
  /** Halfway through (scenario 5 switches from reset to hang). */
  halfway?(): Promise<void>;
  /** Ends the fault; resolves once it is over, with when it ended if that was earlier than now. */
  end(): Promise<number | void>;
}

/** Scenarios 1–6: a paced load to two instances, a fault in the middle of it. */
export interface FaultScenario {
  name: string;
  title: string;
  /** Unscaled: load before the fault, the fault (with load), load after it. */
  leadInMs: number;
  faultMs: number;
  leadOutMs: number;
  /** Unanswered messages whose webhook a SIGKILL cut are counted apart (the Fallback URL's case). */
  countsInFlight?: boolean;
  /** What issue 31 measured on main. */
  onMain: string;
  start(world: FaultWorld): Promise<ActiveFault>;
}

const databaseDown: FaultScenario['start'] = async ({ postgres }) => {
  await postgres.stop();
  return {
    async end() {
      await postgres.restart();
    },
  };
};

/** Issue 31's runs, with its load windows: 325, 1,125, 450, 450, 100 and 300 messages at 5 a second. */
export const faultScenarios: FaultScenario[] = [
  {
    name: 'db-20s',
    title: 'the database stopped for 20 s',
    leadInMs: 20_000,
    faultMs: 20_000,
    leadOutMs: 25_000,
    onMain: 'lost 251 of 325 (both processes exit); 139 with a restart after 1 s, 106 with the crash suppressed',
    start: databaseDown,
  },
  {
    name: 'db-3min',
    title: 'the database down for 3 minutes',
    leadInMs: 20_000,
    faultMs: 180_000,
    leadOutMs: 25_000,
    onMain: 'lost 914 of 1,125',
    start: databaseDown,
  },
  {
    name: 'twilio-500',
    title: "Twilio's REST API answering 500 for 60 s",
    leadInMs: 15_000,
    faultMs: 60_000,
    leadOutMs: 15_000,
    onMain: 'lost 273 of 450 replies',
    async start({ fakeTwilio }) {
      fakeTwilio.setMessageFault({ kind: 'error', failure: { status: 500 } });
      return { end: async () => fakeTwilio.setMessageFault(undefined) };
    },
  },
  {
    name: 'twilio-refused',
    title: 'Twilio refusing connections for 60 s',
    leadInMs: 15_000,
    faultMs: 60_000,
    leadOutMs: 15_000,
    onMain: 'lost 273 of 450 replies (as with 500s)',
    async start({ fakeTwilio }) {
      await fakeTwilio.refuseConnections();
      return { end: () => fakeTwilio.acceptConnections() };
    },
  },
  {
    name: 'drop-answer',
    title: "Twilio taking sends but the answer lost for 20 s (reset, then no answer until Herald's timeout)",
    leadInMs: 0,
    faultMs: 20_000,
    leadOutMs: 0,
    onMain: 'duplicated 100 of 100 (≈4.8 replies each); 70 parts Twilio sent recorded as failed',
    async start({ fakeTwilio }) {
      fakeTwilio.setMessageFault({ kind: 'drop-answer', how: 'reset' });
      return {
        halfway: async () => fakeTwilio.setMessageFault({ kind: 'drop-answer', how: 'hang' }),
        end: async () => fakeTwilio.setMessageFault(undefined),
      };
    },
  },
  {
    name: 'sigkill',
    title: 'SIGKILL of one of two instances every 10 s for 60 s (a replacement started after each)',
    leadInMs: 0,
    faultMs: 60_000,
    leadOutMs: 0,
    countsInFlight: true,
    onMain: 'once 297 of 300, 3 lost in flight; reply p99 15.9 s',
    async start({ fleet, faultMs, scale, print }) {
      const interval = 10_000 * scale;
      const kills = Math.max(1, Math.round(faultMs / interval));
      const started = Date.now();
      let lastKill: number | undefined;
      // Halfway into each interval, the older of the two running instances; its replacement is
      // awaited before the next kill, so there are two again (a late kill is reported).
      const loop = (async () => {
        for (let kill = 0; kill < kills; kill += 1) {
          const due = started + (kill + 0.5) * interval;
          await pause(due - Date.now());
          const live = fleet.live();
          if (live.length < 2) {
            print(`  kill ${kill + 1}: skipped, only ${live.length} instance(s) running`);
            continue;
          }
          if (Date.now() - due > 1_000) print(`  kill ${kill + 1}: ${((Date.now() - due) / 1000).toFixed(1)} s late (the replacement was still starting)`);
          await fleet.kill(live[0]!);
          lastKill = Date.now();
          await fleet.add();
        }
      })();
      return {
        async end() {
          await loop;
          return lastKill;
        },
      };
    },
  },
];
