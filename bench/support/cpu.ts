import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/**
 * CPU time accounting from /proc (Linux; elsewhere every figure is undefined): the
 * machine as a whole, the target server process, every `postgres` process on this host,
 * and this process (the load generator). Reading /proc costs the target nothing.
 */
export interface CpuSnapshot {
  at: number;
  /** Jiffies of the whole machine: busy and total. */
  machine?: { busy: number; total: number };
  /** CPU seconds per process group. */
  target?: { user: number; system: number };
  /** Per postgres process: a backend that exits must not make the sum go backwards. */
  postgres?: Map<number, number>;
  loadGenerator: number;
}

/** CPU use over an interval. */
export interface CpuUsage {
  /** Fraction of the machine's CPU capacity in use (0..1), all cores together. */
  machineBusy?: number;
  /**
   * CPU seconds used by everything else on the host (other programs, the kernel's own
   * threads): busy time of the machine minus the target, Postgres and the load generator.
   * Large values mean the figures are disturbed by something else running.
   */
  others?: number;
  /** CPU seconds. */
  target?: { user: number; system: number };
  postgres?: number;
  loadGenerator: number;
  cores: number;
  /** Wall time of the interval. */
  seconds: number;
}

const procAvailable = existsSync('/proc/stat');
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function processTimes(pid: number): { user: number; system: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / ticksPerSecond, system: Number(fields[12]) / ticksPerSecond };
  } catch {
    return undefined;
  }
}

function processSeconds(pid: number): number | undefined {
  const times = processTimes(pid);
  return times && times.user + times.system;
}

/** CPU seconds of each process of our Postgres server (the postmaster and its children), or of every `postgres` process. */
function postgresSeconds(postmasterPid: number | undefined): Map<number, number> | undefined {
  const seconds = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (postmasterPid === undefined) {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      } else if (Number(entry) !== postmasterPid) {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (parent !== postmasterPid) continue;
      }
    } catch {
      continue;
    }
    const used = processSeconds(Number(entry));
    if (used !== undefined) seconds.set(Number(entry), used);
  }
  return seconds.size > 0 ? seconds : undefined;
}

function machineJiffies(): { busy: number; total: number } | undefined {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

/**
 * @param targetPid the target server process
 * @param postmasterPid our Postgres server's postmaster, when known (embedded); otherwise
 *   every process named `postgres` on this host is counted
 */
export function cpuSnapshot(targetPid?: number, postmasterPid?: number): CpuSnapshot {
  const own = process.cpuUsage();
  const snapshot: CpuSnapshot = { at: Date.now(), loadGenerator: (own.user + own.system) / 1e6 };
  if (!procAvailable) return snapshot;
  const machine = machineJiffies();
  if (machine) snapshot.machine = machine;
  const target = targetPid === undefined ? undefined : processTimes(targetPid);
  if (target !== undefined) snapshot.target = target;
  const postgres = postgresSeconds(postmasterPid);
  if (postgres !== undefined) snapshot.postgres = postgres;
  return snapshot;
}

export function cpuUsage(before: CpuSnapshot, after: CpuSnapshot): CpuUsage {
  const usage: CpuUsage = {
    loadGenerator: after.loadGenerator - before.loadGenerator,
    cores: cpus().length,
    seconds: Math.max(0.001, (after.at - before.at) / 1000),
  };
  if (before.machine && after.machine && after.machine.total > before.machine.total) {
    usage.machineBusy = (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total);
  }
  const machineBusySeconds = before.machine && after.machine ? (after.machine.busy - before.machine.busy) / ticksPerSecond : undefined;
  if (before.target !== undefined && after.target !== undefined) {
    usage.target = { user: after.target.user - before.target.user, system: after.target.system - before.target.system };
  }
  if (after.postgres !== undefined) {
    // Processes that started during the interval count from zero; ones that exited are lost (undercount).
    let used = 0;
    for (const [pid, seconds] of after.postgres) used += seconds - (before.postgres?.get(pid) ?? 0);
    usage.postgres = used;
  }
  if (machineBusySeconds !== undefined) {
    const ours = usage.loadGenerator + (usage.target ? usage.target.user + usage.target.system : 0) + (usage.postgres ?? 0);
    usage.others = Math.max(0, machineBusySeconds - ours);
  }
  return usage;
}

/** How busy the machine is over `milliseconds` (0..1 of all cores), before anything of ours runs; undefined off Linux. */
export async function machineBusyOver(milliseconds: number): Promise<number | undefined> {
  if (!procAvailable) return undefined;
  const before = machineJiffies();
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
  const after = machineJiffies();
  if (!before || !after || after.total <= before.total) return undefined;
  return (after.busy - before.busy) / (after.total - before.total);
}
