/**
 * Resident memory and CPU time of a local process from `/proc` (Linux; Deno
 * needs `-A` to read it, platform.md §3), plus a description of the machine
 * for reports.
 *
 * @module
 */

/** One reading of a process. */
export interface ProcSample {
  /** Monotonic ms when read. */
  readonly at: number;
  /** Resident set size, bytes. */
  readonly rssBytes: number;
  /** User + system CPU time consumed so far, ms. */
  readonly cpuMs: number;
}

/** Kernel clock ticks per second used by `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const USER_HZ = 100;
const PAGE_BYTES = 4096;

/** Parses the text of `/proc/<pid>/stat` into CPU ms and RSS bytes. */
export function parseProcStat(text: string): { cpuMs: number; rssBytes: number } {
  // The command name (field 2) is in parentheses and may contain spaces.
  const close = text.lastIndexOf(")");
  if (close < 0) throw new TypeError("Cannot parse /proc stat: no command name");
  const fields = text.slice(close + 2).trim().split(/\s+/);
  // After the name: field 3 is at index 0, so utime (14) is 11, stime (15) is 12, rss (24) is 21.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const rss = Number(fields[21]);
  if (![utime, stime, rss].every(Number.isFinite)) throw new TypeError("Cannot parse /proc stat: bad fields");
  return { cpuMs: (utime + stime) * 1000 / USER_HZ, rssBytes: rss * PAGE_BYTES };
}

/** Reads a process now; null when it is gone or `/proc` is unreadable. */
export function readProc(pid: number | "self", now: number): ProcSample | null {
  try {
    const parsed = parseProcStat(Deno.readTextFileSync(`/proc/${pid}/stat`));
    return { at: now, ...parsed };
  } catch {
    return null;
  }
}

/** CPU use between two samples in percent of one core. */
export function cpuPercent(a: ProcSample, b: ProcSample): number {
  const span = b.at - a.at;
  return span > 0 ? Math.round(((b.cpuMs - a.cpuMs) / span) * 1000) / 10 : 0;
}

/** Samples a process every `intervalMs` and keeps peak and last values. */
export class ProcWatch {
  readonly pid: number | "self";
  #timer: ReturnType<typeof setInterval> | undefined;
  #first: ProcSample | null = null;
  #last: ProcSample | null = null;
  #peakRss = 0;
  #now: () => number;

  constructor(pid: number | "self", now: () => number = () => performance.now()) {
    this.pid = pid;
    this.#now = now;
  }

  /** Takes a sample now (also updates peak and last). */
  sample(): ProcSample | null {
    const s = readProc(this.pid, this.#now());
    if (s) {
      this.#first ??= s;
      this.#last = s;
      if (s.rssBytes > this.#peakRss) this.#peakRss = s.rssBytes;
    }
    return s;
  }

  /** Starts periodic sampling. */
  start(intervalMs = 1000): void {
    this.sample();
    this.#timer ??= setInterval(() => this.sample(), intervalMs);
  }

  /** Stops periodic sampling. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Highest RSS seen, bytes (0 before any sample). */
  get peakRss(): number {
    return this.#peakRss;
  }

  /** The most recent sample. */
  get last(): ProcSample | null {
    return this.#last;
  }

  /** Forgets the peak (e.g. when a measurement window starts). */
  resetPeak(): void {
    this.#peakRss = this.#last?.rssBytes ?? 0;
  }
}

/** Busy and total CPU time of the whole machine so far (all cores), ms; null when unreadable. */
export function readSystemCpu(): { busyMs: number; totalMs: number } | null {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n", 1)[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...: idle and iowait are not busy.
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busyMs: (total - idle) * 1000 / USER_HZ, totalMs: total * 1000 / USER_HZ };
  } catch {
    return null;
  }
}

/** The 1-, 5- and 15-minute load averages; null when unreadable. */
export function loadAverage(): number[] | null {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).map(Number);
  } catch {
    return null;
  }
}

/** What the report says about the machine. */
export interface MachineInfo {
  readonly cpuModel: string | null;
  readonly cpus: number;
  readonly memTotalMb: number | null;
  readonly os: string;
  readonly kernel: string | null;
  readonly deno: string;
  readonly v8: string;
}

function firstMatch(path: string, re: RegExp): string | null {
  try {
    return re.exec(Deno.readTextFileSync(path))?.[1]?.trim() ?? null;
  } catch {
    return null;
  }
}

/** Describes this machine (best effort; fields are null when unreadable). */
export function machineInfo(): MachineInfo {
  const mem = firstMatch("/proc/meminfo", /MemTotal:\s+(\d+)/);
  return {
    cpuModel: firstMatch("/proc/cpuinfo", /model name\s*:\s*(.+)/),
    cpus: navigator.hardwareConcurrency,
    memTotalMb: mem ? Math.round(Number(mem) / 1024) : null,
    os: firstMatch("/etc/os-release", /PRETTY_NAME="?([^"\n]+)/) ?? Deno.build.os,
    kernel: firstMatch("/proc/sys/kernel/osrelease", /(.+)/),
    deno: Deno.version.deno,
    v8: Deno.version.v8,
  };
}

/** Bytes as MB with one decimal. */
export function mb(bytes: number): number {
  return Math.round(bytes / 1024 / 1024 * 10) / 10;
}
