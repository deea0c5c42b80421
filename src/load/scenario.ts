/**
 * What every scenario gets and gives: injected clock, stop signal, the
 * server-process watch; a live status for the progress bar; and a result with
 * JSON figures, table rows and errors.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { Endpoint, ErrorTally } from "./clients.ts";
import type { ProcWatch } from "./proc.ts";

/** Dependencies of a scenario run. */
export interface RunDeps {
  /** Time and timers (a `SystemClock` for real runs, a `ManualClock` in tests). */
  readonly clock: Clock;
  /** Aborted to stop early (Ctrl-C); the scenario then cleans up and reports what it measured. */
  readonly signal: AbortSignal;
  /** The server process, when it is local and known. */
  readonly server: ProcWatch | null;
  /** The load generator's own process, when readable. */
  readonly self: ProcWatch | null;
}

/** Where the run is, for the progress bar. */
export interface RunStatus {
  /** Short phase name (`ramp`, `hold`, `setup`, `steady`, `cold`, `warm`, `teardown`). */
  readonly phase: string;
  /** Progress of the current phase. */
  readonly done: number;
  readonly total: number;
  /** One short line of live figures. */
  readonly detail: string;
}

/** A table row: metric, value. */
export type Row = readonly [string, string];

/** What a scenario measured. */
export interface ScenarioResult {
  /** Scenario-specific figures (plain JSON). */
  readonly results: Record<string, unknown>;
  /** The human table. */
  readonly rows: Row[];
  /** Every error seen. */
  readonly errors: ErrorTally;
}

/** A running scenario. */
export interface ScenarioRun {
  /** Live status (cheap; polled by the progress bar). */
  status(): RunStatus;
  /** Resolves when the run is over and every client is closed. */
  readonly result: Promise<ScenarioResult>;
}

/** The target of a run. */
export interface RunTarget extends Endpoint {
  /** Server process id, when local. */
  readonly pid: number | null;
  /** HTTP port, for the scenarios that use it. */
  readonly httpPort?: number | null;
}

/** Formats a number of ms for the table (`--` when null). */
export function fmtMs(v: number | null): string {
  return v === null ? "\u2014" : `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v)} ms`;
}

/** Formats a plain number with thousands separators. */
export function fmtNum(v: number | null, digits = 0): string {
  return v === null ? "\u2014" : v.toLocaleString("en-US", { maximumFractionDigits: digits });
}

/** Formats p50 / p99 / max of a summary. */
export function fmtLatency(s: { p50: number | null; p99: number | null; max: number | null }): string {
  return `${fmtMs(s.p50)} / ${fmtMs(s.p99)} / ${fmtMs(s.max)}`;
}
