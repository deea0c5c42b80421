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

/** Longest benchmark, s (the console's `dur_s` bound). */
export const MAX_BENCH_SECS = 3600;

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

/** Why a benchmark could not start: `BUSY` (one is running) or `STOPPING` (the process is shutting down). */
export class BenchmarkError extends Error {
  override name = "BenchmarkError";
  readonly code: "BUSY" | "STOPPING";
  constructor(code: "BUSY" | "STOPPING", message: string) {
    super(message);
    this.code = code;
  }
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
  "--duration": ["durationSecs", duration, 1, MAX_BENCH_SECS],
  "--round-secs": ["roundSecs", duration, 1, 3600],
  "--cpu": ["cpuPercent", Number, 1, 1000],
  "--ram": ["rssMb", size, 16, 1 << 20],
};

/** Usage of the `run` form, for error messages and help. */
export const BENCHMARK_RUN_USAGE =
  "run fixed|ramp [dur_s] [rooms] [--rooms N] [--players N] [--duration 60s|10m] [--round-secs S] [--cpu P] [--ram 2048m]";

function bounded(what: string, raw: string, v: number, min: number, max: number): number {
  if (Number.isNaN(v)) throw new RangeError(`Cannot parse ${what}: "${raw}" is not a number`);
  if (!(v >= min && v <= max)) throw new RangeError(`Cannot parse ${what}: ${raw} is outside ${min}..${max}`);
  return v;
}

/**
 * Parses console arguments: `[dur_s=30] [rooms=100]` (simple form), or
 * `run fixed|ramp [dur_s] [rooms] [--rooms N] [--players N] [--duration 60s|10m] [--round-secs S] [--cpu P]
 * [--ram 2048m]` (flags also as `--flag=value`; `ramp` may add up to 5000 rooms unless `--rooms` says less).
 * Throws a `RangeError` reading `Cannot ...` on bad input.
 */
export function parseBenchmarkArgs(args: readonly string[]): BenchmarkOptions {
  if (args[0] !== "run") {
    if (args.length > 2) throw new RangeError("Cannot parse benchmark: expected [dur_s=30] [rooms=100]");
    const [dur = "30", rooms = "100"] = args;
    const o = { ...BENCHMARK_DEFAULTS, durationSecs: duration(dur), rooms: Number(rooms) };
    if (
      !(o.durationSecs >= 1 && o.durationSecs <= MAX_BENCH_SECS) || !Number.isInteger(o.rooms) || o.rooms < 1 ||
      o.rooms > MAX_BENCH_ROOMS
    ) {
      throw new RangeError(`Cannot parse benchmark: "${args.join(" ")}" (expected [dur_s=30] [rooms=100])`);
    }
    return o;
  }
  const mode = args[1];
  if (mode !== "fixed" && mode !== "ramp") {
    throw new RangeError(`Cannot parse benchmark run: mode must be fixed or ramp, not "${mode ?? ""}"`);
  }
  const o: Record<string, unknown> = { ...BENCHMARK_DEFAULTS, mode };
  // spec 3 §4.2 / PMP: a ramp stops at its CPU or RAM cap, so its room limit is only the hard cap.
  if (mode === "ramp") o.rooms = MAX_BENCH_ROOMS;
  let i = 2;
  // The console's earlier positional form `run <mode> [dur_s] [rooms]` still works.
  for (const key of ["durationSecs", "rooms"] as const) {
    const raw = args[i];
    if (raw === undefined || raw.startsWith("-")) break;
    const max = key === "rooms" ? MAX_BENCH_ROOMS : MAX_BENCH_SECS;
    const v = key === "rooms" ? Number(raw) : duration(raw);
    if (key === "rooms" && !Number.isInteger(v)) {
      throw new RangeError(`Cannot parse benchmark run: rooms "${raw}" is not an integer`);
    }
    o[key] = bounded(`benchmark run: ${key === "rooms" ? "rooms" : "dur_s"}`, raw, v, 1, max);
    i++;
  }
  for (; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = FLAGS[flag];
    if (!spec) {
      throw new RangeError(`Cannot parse benchmark run: unexpected "${arg}" (expected ${BENCHMARK_RUN_USAGE})`);
    }
    const raw = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (raw === undefined) throw new RangeError(`Cannot parse benchmark run: ${flag} needs a value`);
    const [key, parse, min, max] = spec;
    const v = bounded(`benchmark run: ${flag}`, raw, parse(raw), min, max);
    o[key] = key === "rooms" || key === "playersPerRoom" ? Math.floor(v) : v;
  }
  return o as unknown as BenchmarkOptions;
}

/** One line saying what a benchmark will do. */
export function describeBenchmark(o: BenchmarkOptions): string {
  const what = o.mode === "fixed"
    ? `${o.rooms} rooms`
    : `up to ${o.rooms} rooms, until CPU ${o.cpuPercent} % or RSS ${o.rssMb} MB`;
  return `benchmark ${o.mode}: ${o.durationSecs} s, ${what}, ${o.playersPerRoom} players per room`;
}

/** The report as console lines. */
export function formatBenchmarkReport(r: BenchmarkReport): string[] {
  const ap = (v: AvgPeak, unit = "") => `avg ${v.avg}${unit}, peak ${v.peak}${unit}`;
  const l = r.latency.summary;
  const lines = [
    `${r.title}${r.interrupted ? " (interrupted)" : ""} \u2014 report ${r.id}`,
    `duration ${r.durationSecs} s, rounds ${r.rounds}`,
    `sessions ${ap(r.sessions)}; rooms ${ap(r.rooms)}; playing ${ap(r.playingRooms)}`,
    `CPU ${ap(r.cpuPercent, " %")}; RSS ${ap(r.rssMb, " MB")}; commands/s ${ap(r.commandsPerSec)}`,
    `operations ${r.operations}, failed ${r.failedOperations}; telemetry ${r.telemetry.touchMessages} touch and ${r.telemetry.judgeMessages} judge messages`,
    `latency p50 ${l.p50 ?? "-"} ms, p99 ${l.p99 ?? "-"} ms, max ${l.max ?? "-"} ms`,
    `histogram ${r.latency.buckets.map((b) => `${b.le === null ? "\u22655000" : `<${b.le}`}:${b.count}`).join(" ")}`,
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
