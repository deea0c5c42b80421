/**
 * Options, report and text of the in-process benchmark (console `benchmark
 * run fixed|ramp`, `benchmark [dur_s=30] [rooms=100]`; spec 3 §4.2).
 *
 * @module
 */

import type { FixedBucket, LatencySummary } from "./stats.ts";
import type { TelemetryCounts } from "./telemetry.ts";

/** What to run. */
export interface BenchmarkOptions {
  /** `fixed`: keep `rooms` rooms playing; `ramp`: add rooms until a cap is reached, then hold. */
  readonly mode: "fixed" | "ramp";
  readonly durationSecs: number;
  /** Rooms to keep (fixed) or the most to add (ramp; hard cap 5000). */
  readonly rooms: number;
  readonly playersPerRoom: number;
  /** Play time of each round. */
  readonly roundSecs: number;
  /** Ramp caps: process CPU in percent of one core, resident memory in MB. */
  readonly cpuPercent: number;
  readonly rssMb: number;
  /** Telemetry per player (official client rates by default). */
  readonly fingers: number;
  readonly notesPerSec: number;
  /** Sampling (and ramp) step, ms. */
  readonly stepMs: number;
}

/** Defaults: 100 rooms of 2 players for 60 s (`benchmark run fixed`). */
export const BENCHMARK_DEFAULTS: BenchmarkOptions = {
  mode: "fixed",
  durationSecs: 60,
  rooms: 100,
  playersPerRoom: 2,
  roundSecs: 30,
  cpuPercent: 90,
  rssMb: 2048,
  fingers: 2,
  notesPerSec: 16,
  stepMs: 1000,
};

/** Most rooms a benchmark ever creates. */
export const MAX_BENCH_ROOMS = 5000;

/** Average and peak of a sampled figure. */
export interface AvgPeak {
  readonly avg: number;
  readonly peak: number;
}

/** One periodic status line. */
export interface BenchmarkStatus {
  readonly elapsedMs: number;
  readonly sessions: number;
  readonly rooms: number;
  readonly playingRooms: number;
  readonly cpuPercent: number;
  readonly rssMb: number;
  readonly commandsPerSec: number;
}

/** The stored and printed result (plain JSON). */
export interface BenchmarkReport {
  readonly id: string;
  readonly title: string;
  readonly mode: BenchmarkOptions["mode"];
  readonly startedAt: string;
  readonly durationSecs: number;
  readonly interrupted: boolean;
  readonly options: BenchmarkOptions;
  /** Requests sent by virtual clients (telemetry excluded) and how many failed. */
  readonly operations: number;
  readonly failedOperations: number;
  readonly operationsByKind: Record<string, { count: number; failed: number }>;
  /** Round trips of successful requests: summary and the server's 9 buckets (spec 3 §8). */
  readonly latency: { readonly summary: LatencySummary; readonly buckets: FixedBucket[] };
  readonly sessions: AvgPeak;
  readonly rooms: AvgPeak;
  readonly playingRooms: AvgPeak;
  readonly cpuPercent: AvgPeak;
  readonly rssMb: AvgPeak;
  /** Every client command (requests and telemetry) per second. */
  readonly commandsPerSec: AvgPeak;
  readonly telemetry: TelemetryCounts;
  readonly rounds: number;
  /** Ramp only: when and why adding rooms stopped. */
  readonly reached: {
    readonly atSecs: number;
    readonly rooms: number;
    readonly sessions: number;
    readonly reason: "cpu" | "ram" | "max-rooms";
  } | null;
  readonly failureSamples: string[];
  /** What was left behind (all 0 when cleanup worked). */
  readonly cleanup: { readonly rooms: number; readonly users: number; readonly sessions: number };
  readonly notes: string[];
}

/** Where reports are kept (the persistence layer's `saveBenchmarkReport` fits). */
export interface BenchmarkReportStore {
  saveBenchmarkReport(input: { id?: string; title: string; report: unknown }): unknown;
}

function size(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)([mg]b?)?$/i.exec(raw);
  if (!m) return NaN;
  return Number(m[1]) * (m[2]?.toLowerCase().startsWith("g") ? 1024 : 1);
}

function duration(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(raw);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === "m" ? 60 : m[2] === "h" ? 3600 : 1);
}

const FLAGS: Record<string, [keyof BenchmarkOptions, (raw: string) => number, number, number]> = {
  "--rooms": ["rooms", Number, 1, MAX_BENCH_ROOMS],
  "--playing-rooms": ["rooms", Number, 1, MAX_BENCH_ROOMS],
  "--max-rooms": ["rooms", Number, 1, MAX_BENCH_ROOMS],
  "--players": ["playersPerRoom", Number, 1, 100],
  "--duration": ["durationSecs", duration, 1, 86400],
  "--round-secs": ["roundSecs", duration, 1, 3600],
  "--cpu": ["cpuPercent", Number, 1, 1000],
  "--ram": ["rssMb", size, 16, 1 << 20],
};

/**
 * Parses console arguments: `[dur_s=30] [rooms=100]` (simple form), or
 * `run fixed|ramp [--rooms N] [--players N] [--duration 60s|10m] [--round-secs S] [--cpu P] [--ram 2048m]`.
 * Throws a `RangeError` reading `Cannot …` on bad input.
 */
export function parseBenchmarkArgs(args: readonly string[]): BenchmarkOptions {
  if (args[0] !== "run") {
    if (args.length > 2) throw new RangeError("Cannot parse benchmark: expected [dur_s] [rooms]");
    const [dur = "30", rooms = "100"] = args;
    const o = { ...BENCHMARK_DEFAULTS, durationSecs: duration(dur), rooms: Number(rooms) };
    if (!(o.durationSecs >= 1) || !Number.isInteger(o.rooms) || o.rooms < 1 || o.rooms > MAX_BENCH_ROOMS) {
      throw new RangeError(`Cannot parse benchmark: "${args.join(" ")}" (expected [dur_s=30] [rooms=100])`);
    }
    return o;
  }
  const mode = args[1];
  if (mode !== "fixed" && mode !== "ramp") {
    throw new RangeError(`Cannot parse benchmark run: mode must be fixed or ramp`);
  }
  const o: Record<string, unknown> = { ...BENCHMARK_DEFAULTS, mode };
  if (mode === "ramp") o.rooms = MAX_BENCH_ROOMS;
  for (let i = 2; i < args.length; i += 2) {
    const spec = FLAGS[args[i]!];
    const raw = args[i + 1];
    if (!spec || raw === undefined) throw new RangeError(`Cannot parse benchmark run: unexpected "${args[i]}"`);
    const [key, parse, min, max] = spec;
    const v = parse(raw);
    if (!(v >= min && v <= max)) {
      throw new RangeError(`Cannot parse benchmark run: ${args[i]} ${raw} is outside ${min}..${max}`);
    }
    o[key] = key === "rooms" || key === "playersPerRoom" ? Math.floor(v) : v;
  }
  return o as unknown as BenchmarkOptions;
}

/** The report as console lines. */
export function formatBenchmarkReport(r: BenchmarkReport): string[] {
  const ap = (v: AvgPeak, unit = "") => `avg ${v.avg}${unit}, peak ${v.peak}${unit}`;
  const l = r.latency.summary;
  const lines = [
    `${r.title}${r.interrupted ? " (interrupted)" : ""} — report ${r.id}`,
    `duration ${r.durationSecs} s, rounds ${r.rounds}`,
    `sessions ${ap(r.sessions)}; rooms ${ap(r.rooms)}; playing ${ap(r.playingRooms)}`,
    `CPU ${ap(r.cpuPercent, " %")}; RSS ${ap(r.rssMb, " MB")}; commands/s ${ap(r.commandsPerSec)}`,
    `operations ${r.operations}, failed ${r.failedOperations}; telemetry ${r.telemetry.touchMessages} touch and ${r.telemetry.judgeMessages} judge messages`,
    `latency p50 ${l.p50 ?? "-"} ms, p99 ${l.p99 ?? "-"} ms, max ${l.max ?? "-"} ms`,
    `histogram ${r.latency.buckets.map((b) => `${b.le === null ? "≥5000" : `<${b.le}`}:${b.count}`).join(" ")}`,
  ];
  if (r.reached) {
    lines.push(
      `ramp stopped at ${r.reached.atSecs} s by ${r.reached.reason}: ${r.reached.rooms} rooms, ${r.reached.sessions} sessions`,
    );
  }
  for (const f of r.failureSamples.slice(0, 5)) lines.push(`failure: ${f}`);
  const c = r.cleanup;
  lines.push(
    c.rooms || c.users || c.sessions
      ? `cleanup left ${c.rooms} rooms, ${c.users} users, ${c.sessions} sessions`
      : "cleanup complete",
  );
  for (const n of r.notes) lines.push(`note: ${n}`);
  return lines;
}
