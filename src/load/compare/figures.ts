/**
 * The figures of one server's phases, taken from the load generator's JSON
 * reports (`chorus-load-report/1`) and the harness's own `/proc` samples;
 * and the verdict on which resource saturated first.
 *
 * @module
 */

import { mib, peakPercents, rssSlopeMiBPerMin, type Sample, windowFigures } from "./sampler.ts";

/** p50 / p99 / max of a latency, ms. */
export interface Latency {
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

/** Start and idle sessions on one server process. */
export interface IdleFigures {
  readonly rssAfterStartMiB: number;
  readonly sessions: number;
  readonly established: number;
  readonly rssAtSessionsMiB: number | null;
  readonly kibPerSession: number | null;
  readonly ping: Latency;
  readonly pingTimeouts: number;
  readonly serverCpuPercent: number | null;
  readonly generatorCpuPercent: number | null;
  readonly errors: number;
  readonly errorKinds: Record<string, number>;
  readonly errorSamples: string[];
}

/** Rooms relaying at client rates on one server process. */
export interface RelayFigures {
  readonly rooms: number;
  readonly ready: number;
  readonly failedSetup: number;
  /** Rooms not set up when the setup limit ran out (the window measured the rest). */
  readonly unfinishedSetup: number;
  readonly failedRound: number;
  readonly steadySecs: number;
  readonly relayedPerSec: number;
  readonly relay: Latency;
  readonly pingP99: number | null;
  readonly serverCpuPercent: number | null;
  readonly serverMainThreadPercent: number | null;
  readonly machinePercent: number | null;
  /** Busiest 10 s of the server's main thread and of the machine over the whole phase, setup included. */
  readonly peakMainThreadPercent: number | null;
  readonly peakMachinePercent: number | null;
  /** Machine CPU not used by the server or the generators (other processes, PostgreSQL, the upstream). */
  readonly otherPercent: number | null;
  readonly generatorCpuPercent: number;
  readonly generatorLagP99: number | null;
  readonly rssSteadyStartMiB: number | null;
  readonly rssAfterFirstRoundMiB: number | null;
  readonly rssEndMiB: number | null;
  readonly rssPeakMiB: number | null;
  /** RSS trend after the first round, MiB per minute (~ 0 when flat). */
  readonly rssSlopeMiBPerMin: number | null;
  readonly errors: number;
  /** Errors by kind over every generator process (`room-setup`, `Ready/timeout`, ...). */
  readonly errorKinds: Record<string, number>;
  /** The first error messages (a few per generator process). */
  readonly errorSamples: string[];
  readonly saturated: string;
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** Error counts by kind, summed over reports. */
export function mergeKinds(reports: readonly Json[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of reports) {
    for (const [k, n] of Object.entries(r.errors?.byKind ?? {})) out[k] = (out[k] ?? 0) + (n as number);
  }
  return out;
}

const samplesOf = (reports: readonly Json[]): string[] =>
  reports.flatMap((r) => ((r.errors?.samples ?? []) as string[]).slice(0, 5));

const lat = (s: Json): Latency => ({ p50: s?.p50 ?? null, p99: s?.p99 ?? null, max: s?.max ?? null });

/** Idle figures from a `sessions` report and the RSS read after start. */
export function idleFigures(rssAfterStartBytes: number, report: Json): IdleFigures {
  const r = report.results;
  return {
    rssAfterStartMiB: mib(rssAfterStartBytes),
    sessions: r.sessions.target,
    established: r.sessions.established,
    rssAtSessionsMiB: r.server?.rssHoldEndMb ?? null,
    kibPerSession: r.server?.perSessionKb ?? null,
    ping: lat(r.pingHold),
    pingTimeouts: r.pingTimeouts ?? 0,
    serverCpuPercent: r.server?.cpuPercentHold ?? null,
    generatorCpuPercent: r.generator?.cpuPercentHold ?? null,
    errors: report.errors?.total ?? 0,
    errorKinds: mergeKinds([report]),
    errorSamples: samplesOf([report]),
  };
}

/** The stretch over which peaks are taken (saturation must last, not be one busy sample). */
export const PEAK_SPAN_MS = 10_000;

/** The steady window of `rooms` reports, wall-clock ms: the latest start to the earliest end. */
export function steadyWindow(reports: readonly Json[]): { from: number; to: number } {
  const starts = reports.map((r) => Date.parse(r.startedAt) + r.results.setupMs);
  const ends = reports.map((r, i) => starts[i]! + r.results.steadyMs);
  return { from: Math.max(...starts), to: Math.min(...ends) };
}

const maxOf = (xs: (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? Math.max(...v) : null;
};

/** Inputs of {@link saturationVerdict}, % of one core. */
export interface Load {
  readonly serverMainThread: number | null;
  readonly machine: number | null;
  /** The busiest generator process. */
  readonly generator: number;
  /** Machine CPU used by neither the server nor the generators. */
  readonly other: number | null;
  readonly cores: number;
}

/**
 * Which resource ran out first: the server's event loop (its main thread
 * near a full core for 10 s at some point of the phase, setup included), the
 * machine's cores (server + generator + the rest near every core), the load
 * generator itself, or none.
 */
export function saturationVerdict(l: Load): string {
  const f = (n: number) => `${Math.round(n)} %`;
  if (l.serverMainThread !== null && l.serverMainThread >= 90) {
    return `server event loop (main thread ${f(l.serverMainThread)} of a core)`;
  }
  if (l.machine !== null && l.machine >= l.cores * 100 * 0.9) {
    const other = l.other === null ? "" : `, ${f(l.other)} by other processes`;
    return `machine CPU (${f(l.machine)} of ${l.cores * 100} %${other})`;
  }
  if (l.generator >= 90) {
    return `load generator (${f(l.generator)})`;
  }
  return "none";
}

/**
 * Relay figures from the `rooms` reports of every generator process, the
 * server samples and the round length. Latencies of several processes are
 * combined as the largest per-process figure (exact with one process).
 */
export function relayFigures(
  reports: readonly Json[],
  samples: readonly Sample[],
  roundSecs: number,
  cores: number,
): RelayFigures {
  const w = steadyWindow(reports);
  const whole = windowFigures(samples, w.from, w.to);
  const peak = peakPercents(samples, PEAK_SPAN_MS);
  const afterRound = w.from + roundSecs * 1000;
  const later = samples.filter((s) => s.at >= afterRound && s.at <= w.to);
  const sum = (f: (r: Json) => number) => reports.reduce((t, r) => t + (f(r) ?? 0), 0);
  const generator = Math.round(sum((r) => r.results.generator?.cpuPercent ?? 0) * 10) / 10;
  const relays = reports.map((r) => lat(r.results.relayLatency?.all));
  const other = whole && whole.machinePercent !== null
    ? Math.max(0, Math.round((whole.machinePercent - whole.cpuPercent - generator) * 10) / 10)
    : null;
  return {
    rooms: sum((r) => r.results.rooms.target),
    ready: sum((r) => r.results.rooms.ready),
    failedSetup: sum((r) => r.results.rooms.setupFailed),
    unfinishedSetup: sum((r) => r.results.rooms.setupUnfinished ?? 0),
    failedRound: sum((r) => r.results.rooms.roundFailed),
    steadySecs: Math.round((w.to - w.from) / 100) / 10,
    relayedPerSec: Math.round(
      sum((r) => r.results.relayedPerSec.touchMessages + r.results.relayedPerSec.judgeMessages),
    ),
    relay: {
      p50: maxOf(relays.map((x) => x.p50)),
      p99: maxOf(relays.map((x) => x.p99)),
      max: maxOf(relays.map((x) => x.max)),
    },
    pingP99: maxOf(reports.map((r) => r.results.pingSteady?.p99 ?? null)),
    serverCpuPercent: whole?.cpuPercent ?? null,
    serverMainThreadPercent: whole?.mainThreadPercent ?? null,
    machinePercent: whole?.machinePercent ?? null,
    peakMainThreadPercent: peak?.mainThread ?? null,
    peakMachinePercent: peak?.machine ?? null,
    otherPercent: other,
    generatorCpuPercent: generator,
    generatorLagP99: maxOf(reports.map((r) => r.generatorLag?.p99 ?? null)),
    rssSteadyStartMiB: whole ? mib(whole.rssFirstBytes) : null,
    rssAfterFirstRoundMiB: later.length ? mib(later[0]!.rssBytes) : null,
    rssEndMiB: whole ? mib(whole.rssLastBytes) : null,
    rssPeakMiB: whole ? mib(whole.rssPeakBytes) : null,
    rssSlopeMiBPerMin: rssSlopeMiBPerMin(samples, afterRound, w.to),
    errors: sum((r) => r.errors?.total ?? 0),
    errorKinds: mergeKinds(reports),
    errorSamples: samplesOf(reports),
    saturated: saturationVerdict({
      serverMainThread: peak?.mainThread ?? whole?.mainThreadPercent ?? null,
      machine: peak?.machine ?? whole?.machinePercent ?? null,
      generator: Math.max(...reports.map((r) => r.results.generator?.cpuPercent ?? 0)),
      other,
      cores,
    }),
  };
}
