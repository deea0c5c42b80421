/**
 * Samples a server process from `/proc` during a phase: resident memory,
 * CPU time of the whole process (every thread) and of its main thread (the
 * event loop: `/proc/<pid>/task/<pid>/stat`), and the machine's busy time,
 * each with the wall-clock time it was read. The pure window functions turn
 * samples into the figures of the tables.
 *
 * @module
 */

import { parseProcStat, readSystemCpu } from "../proc.ts";

/** One reading. */
export interface Sample {
  /** Wall-clock ms (`Date.now()`), to line up with the load reports' `startedAt`. */
  readonly at: number;
  readonly rssBytes: number;
  /** User + system CPU of the whole process so far, ms. */
  readonly cpuMs: number;
  /** User + system CPU of the main thread so far, ms. */
  readonly mainCpuMs: number;
  /** Busy CPU of the whole machine (all cores) so far, ms; null when unreadable. */
  readonly machineBusyMs: number | null;
}

/** Reads `pid` now; null when it is gone. */
export function readSample(pid: number, at = Date.now()): Sample | null {
  try {
    const all = parseProcStat(Deno.readTextFileSync(`/proc/${pid}/stat`));
    const main = parseProcStat(Deno.readTextFileSync(`/proc/${pid}/task/${pid}/stat`));
    return {
      at,
      rssBytes: all.rssBytes,
      cpuMs: all.cpuMs,
      mainCpuMs: main.cpuMs,
      machineBusyMs: readSystemCpu()?.busyMs ?? null,
    };
  } catch {
    return null;
  }
}

/** Samples a process every interval until stopped. */
export class Sampler {
  readonly samples: Sample[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly pid: number, readonly read: (pid: number) => Sample | null = readSample) {}

  /** Takes one sample now. */
  sample(): Sample | null {
    const s = this.read(this.pid);
    if (s) this.samples.push(s);
    return s;
  }

  /** Starts sampling every `intervalMs`. */
  start(intervalMs: number): void {
    this.sample();
    this.#timer ??= setInterval(() => this.sample(), intervalMs);
  }

  /** Stops sampling (with a last sample). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.sample();
  }
}

/** Figures over a window of samples. */
export interface WindowFigures {
  /** Samples in the window. */
  readonly count: number;
  /** Whole process, % of one core. */
  readonly cpuPercent: number;
  /** Main thread (event loop), % of one core. */
  readonly mainThreadPercent: number;
  /** Whole machine, % of one core (200 = two cores busy); null when unreadable. */
  readonly machinePercent: number | null;
  readonly rssFirstBytes: number;
  readonly rssLastBytes: number;
  readonly rssPeakBytes: number;
}

const pct = (ms: number, span: number) => Math.round(ms / span * 1000) / 10;

/** Figures between wall-clock `from` and `to` (samples inside the window, ends included); null with < 2 samples. */
export function windowFigures(samples: readonly Sample[], from: number, to: number): WindowFigures | null {
  const inside = samples.filter((s) => s.at >= from && s.at <= to);
  if (inside.length < 2) return null;
  const a = inside[0]!;
  const b = inside[inside.length - 1]!;
  const span = b.at - a.at;
  if (span <= 0) return null;
  return {
    count: inside.length,
    cpuPercent: pct(b.cpuMs - a.cpuMs, span),
    mainThreadPercent: pct(b.mainCpuMs - a.mainCpuMs, span),
    machinePercent: a.machineBusyMs !== null && b.machineBusyMs !== null
      ? pct(b.machineBusyMs - a.machineBusyMs, span)
      : null,
    rssFirstBytes: a.rssBytes,
    rssLastBytes: b.rssBytes,
    rssPeakBytes: Math.max(...inside.map((s) => s.rssBytes)),
  };
}

/** Least-squares slope of RSS between `from` and `to`, MiB per minute; null with < 2 samples. */
export function rssSlopeMiBPerMin(samples: readonly Sample[], from: number, to: number): number | null {
  const inside = samples.filter((s) => s.at >= from && s.at <= to);
  if (inside.length < 2) return null;
  const n = inside.length;
  const mx = inside.reduce((t, s) => t + s.at, 0) / n;
  const my = inside.reduce((t, s) => t + s.rssBytes, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of inside) {
    num += (s.at - mx) * (s.rssBytes - my);
    den += (s.at - mx) ** 2;
  }
  if (den === 0) return null;
  return Math.round(num / den * 60_000 / 1024 / 1024 * 100) / 100;
}

/** Busiest stretch of at least `spanMs` over all samples (setup included), % of one core; null when none. */
export function peakPercents(
  samples: readonly Sample[],
  spanMs: number,
): { mainThread: number; machine: number | null } | null {
  let main: number | null = null;
  let machine: number | null = null;
  let j = 0;
  for (let i = 0; i < samples.length; i++) {
    const a = samples[i]!;
    j = Math.max(j, i + 1);
    while (j < samples.length && samples[j]!.at - a.at < spanMs) j++;
    if (j >= samples.length) break;
    const b = samples[j]!;
    const span = b.at - a.at;
    main = Math.max(main ?? 0, pct(b.mainCpuMs - a.mainCpuMs, span));
    if (a.machineBusyMs !== null && b.machineBusyMs !== null) {
      machine = Math.max(machine ?? 0, pct(b.machineBusyMs - a.machineBusyMs, span));
    }
  }
  return main === null ? null : { mainThread: main, machine };
}

/** Bytes as MiB, one decimal. */
export function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 1024 * 10) / 10;
}
