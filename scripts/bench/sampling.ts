/**
 * The benchmark's edge: what it reads from /proc (process trees' RSS and CPU, the machine's CPU) and from the
 * reference target's /metrics. The figures made from these readings are pure functions in ./figures.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { getJson } from '../adapters/get-json';
import type { CpuTimes } from './figures';
import { PinError, cpuListText, parseCpuList } from './pinning';

/** Linux clock ticks per second (USER_HZ) for /proc CPU times. */
export const CLK_TCK = 100;
const PAGE = 4096;

interface ProcessRow {
  readonly ppid: number;
  readonly ticks: number;
  readonly rss: number;
  readonly cmd: string;
}

/** pid → { ppid, ticks, rss, cmd } for every process, from /proc. */
function processTable(): Map<number, ProcessRow> {
  const out = new Map<number, ProcessRow>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), rss: Number(f[21]) * PAGE, cmd });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** The CPUs this process may run on (its affinity, /proc/self/status); every online CPU where that cannot be read. */
export function allowedCpus(online: number): number[] {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m?.[1]) return parseCpuList('cpus', m[1]);
  } catch {
    /* not Linux */
  }
  return Array.from({ length: online }, (_, i) => i);
}

/** Checks that taskset (util-linux) can be run. @throws PinError naming the fix */
export function checkTaskset(): void {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new PinError('--pin needs taskset (util-linux: `apt-get install util-linux`, `dnf install util-linux`); install it or drop --pin');
  }
}

/** The command line that starts `argv` on `cpus` (taskset execs it: same pid, children inherit the affinity). */
export function pinnedCommand(cpus: readonly number[] | undefined, argv: readonly string[]): string[] {
  return cpus ? ['taskset', '-c', cpuListText(cpus), ...argv] : [...argv];
}

/**
 * Pins every thread of `root` and its descendants to `cpus` (`taskset -a -p`); processes they start later
 * inherit it. Returns how many processes were pinned.
 */
export function pinTree(root: number, cpus: readonly number[]): number {
  let n = 0;
  for (const pid of processTree(processTable(), root)) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpuListText(cpus), String(pid)], { stdio: 'ignore' });
      n++;
    } catch {
      /* exited meanwhile */
    }
  }
  return n;
}

/** `root` and every process below it. */
function processTree(table: ReadonlyMap<number, ProcessRow>, root: number): Set<number> {
  const inTree = new Set<number>([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of table) if (!inTree.has(pid) && inTree.has(p.ppid)) { inTree.add(pid); grew = true; }
  }
  return inTree;
}

/**
 * CPU time so far, in ticks: the machine's (first line of /proc/stat), or the sum over `cpus` (their `cpuN`
 * lines) when given, e.g. the generator CPUs of a pinned bench.
 */
export function machineCpu(cpus?: readonly number[]): CpuTimes {
  const lines = fs.readFileSync('/proc/stat', 'utf8').split('\n');
  const wanted = cpus ? lines.filter((l) => cpus.some((c) => l.startsWith(`cpu${c} `))) : lines.slice(0, 1);
  let busy = 0;
  let idleTicks = 0;
  for (const line of wanted) {
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
    busy += user + nice + system + irq + softirq + steal;
    idleTicks += idle + iowait;
  }
  return { busy, idle: idleTicks };
}

/**
 * Samples the processes under `root` (descendants whose command line matches `isLoad`, the root included)
 * every 500 ms: summed RSS over time, and each process's last CPU ticks (a process's CPU is kept after it exits).
 */
export class TreeSampler {
  private timer?: NodeJS.Timeout;
  readonly rss: Array<{ at: number; bytes: number }> = [];
  private readonly ticks = new Map<number, number>();
  private readonly ticksAt = new Map<number, number>();
  private loadStartAt?: number;

  constructor(
    private readonly root: number,
    private readonly isLoad: (cmd: string) => boolean = () => true,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), 500);
    this.sample();
  }

  /** Marks the load start: CPU is counted from the ticks each process had here. */
  markLoadStart(at: number): void {
    this.loadStartAt = at;
    for (const [pid, t] of this.ticks) this.ticksAt.set(pid, t);
  }

  sample(): void {
    const table = processTable();
    let bytes = 0;
    for (const pid of processTree(table, this.root)) {
      const p = table.get(pid);
      if (!p || !this.isLoad(p.cmd)) continue;
      bytes += p.rss;
      this.ticks.set(pid, p.ticks);
      if (this.loadStartAt !== undefined && !this.ticksAt.has(pid)) this.ticksAt.set(pid, 0);
    }
    this.rss.push({ at: Date.now(), bytes });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** CPU ticks of the sampled processes so far (as of the last sample), exited ones included. */
  ticksSoFar(): number {
    let t = 0;
    for (const v of this.ticks.values()) t += v;
    return t;
  }

  /** RSS just before the load started (last sample at or before it). */
  baseRss(): number | undefined {
    if (this.loadStartAt === undefined) return undefined;
    const before = this.rss.filter((s) => s.at <= this.loadStartAt! && s.bytes > 0);
    return before[before.length - 1]?.bytes;
  }

  peakRss(): number | undefined {
    return this.rss.length ? Math.max(...this.rss.map((s) => s.bytes)) : undefined;
  }

  /** CPU-seconds since markLoadStart. */
  cpuSeconds(): number | undefined {
    if (this.loadStartAt === undefined) return undefined;
    let t = 0;
    for (const [pid, last] of this.ticks) t += last - (this.ticksAt.get(pid) ?? last);
    return t / CLK_TCK;
  }
}

/** The target's summed RSS and connections (GET /metrics of the reference target; {} from anything else, within 2 s). */
export async function targetMetrics(url: string): Promise<{ rss?: number; connections?: number }> {
  try {
    const j = (await getJson(`${url}/metrics`, 2000)) as { connections?: number; memory?: { rss?: number } } | null;
    return { rss: j?.memory?.rss, connections: j?.connections };
  } catch {
    return {};
  }
}
