/**
 * The end-of-run output: a JSON report (format `chorus-load-report/1`) and
 * the same figures as an aligned text table.
 *
 * @module
 */

import type { LoadOptions } from "./args.ts";
import type { MachineInfo } from "./proc.ts";
import type { Row, ScenarioResult } from "./scenario.ts";
import type { LatencySummary } from "./stats.ts";

/** Identifier of the JSON report format. */
export const REPORT_FORMAT = "chorus-load-report/1";

/** The JSON report of one load run. */
export interface LoadReport {
  readonly format: typeof REPORT_FORMAT;
  readonly scenario: LoadOptions["scenario"];
  /** ISO time the run started. */
  readonly startedAt: string;
  /** Wall time of the whole run, ms. */
  readonly durationMs: number;
  /** True when Ctrl-C stopped it early. */
  readonly interrupted: boolean;
  readonly machine: MachineInfo;
  readonly target: {
    readonly host: string;
    readonly port: number;
    readonly pid: number | null;
    readonly spawned: boolean;
    readonly upstream: string;
  };
  /** The options as parsed. */
  readonly options: Record<string, unknown>;
  /** Scenario-specific figures. */
  readonly results: Record<string, unknown>;
  readonly errors: { total: number; byKind: Record<string, number>; samples: string[] };
  /** The generator's own event-loop lag: a busy generator inflates every latency it measures. */
  readonly generatorLag: LatencySummary;
  /** Contention: load averages around the run and the CPU other processes used meanwhile (% of one core). */
  readonly machineLoad: MachineLoad;
  /** The table rows as printed. */
  readonly table: Row[];
}

/** How busy the machine was apart from the server and the generator. */
export interface MachineLoad {
  readonly loadBefore: number[] | null;
  readonly loadAfter: number[] | null;
  readonly otherCpuPercent: number | null;
}

/** Fields of {@link buildReport} that do not come from the scenario. */
export interface ReportContext {
  readonly options: LoadOptions;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly interrupted: boolean;
  readonly machine: MachineInfo;
  readonly target: LoadReport["target"];
  readonly generatorLag: LatencySummary;
  readonly machineLoad: MachineLoad;
}

/** Assembles the JSON report, adding the error and lag rows to the scenario's table. */
export function buildReport(ctx: ReportContext, r: ScenarioResult): LoadReport {
  const errors = r.errors.toJSON();
  const lag = ctx.generatorLag;
  const table: Row[] = [
    ...r.rows,
    ["errors", errors.total ? Object.entries(errors.byKind).map(([k, n]) => `${k} ×${n}`).join(", ") : "0"],
    ["generator event-loop lag p99 / max", `${lag.p99 ?? "\u2014"} / ${lag.max ?? "\u2014"} ms`],
    [
      "other processes' CPU (machine)",
      ctx.machineLoad.otherCpuPercent === null ? "\u2014" : `${ctx.machineLoad.otherCpuPercent} % of one core`,
    ],
  ];
  const { serverArgs, ...options } = ctx.options;
  return {
    format: REPORT_FORMAT,
    scenario: ctx.options.scenario,
    startedAt: ctx.startedAt.toISOString(),
    durationMs: Math.round(ctx.durationMs),
    interrupted: ctx.interrupted,
    machine: ctx.machine,
    target: ctx.target,
    options: { ...options, serverArgs: [...serverArgs] },
    results: r.results,
    errors,
    generatorLag: lag,
    machineLoad: ctx.machineLoad,
    table,
  };
}

/** Renders rows as a two-column table under a title. */
export function renderTable(title: string, rows: readonly Row[]): string {
  const w0 = Math.max(title.length, ...rows.map(([k]) => k.length));
  const w1 = Math.max(5, ...rows.map(([, v]) => v.length));
  const line = `+${"-".repeat(w0 + 2)}+${"-".repeat(w1 + 2)}+`;
  return [
    line,
    `| ${title.padEnd(w0)} | ${"".padEnd(w1)} |`,
    line,
    ...rows.map(([k, v]) => `| ${k.padEnd(w0)} | ${v.padEnd(w1)} |`),
    line,
  ].join("\n");
}

/** The human summary printed at the end of a run. */
export function renderReport(report: LoadReport): string {
  const m = report.machine;
  const title = `${report.scenario}${
    report.interrupted ? " (interrupted)" : ""
  } \u2014 ${report.target.host}:${report.target.port}`;
  const errorLines = report.errors.samples.length
    ? ["", "first errors:", ...report.errors.samples.map((s) => `  ${s}`)]
    : [];
  return [
    renderTable(title, report.table),
    `machine: ${m.cpuModel ?? "?"} × ${m.cpus}, ${m.memTotalMb ?? "?"} MB, ${m.os}, Deno ${m.deno}`,
    ...errorLines,
  ].join("\n");
}
