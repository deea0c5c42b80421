/**
 * The comparison's tables as Markdown (aligned as `deno fmt` writes them, so
 * they paste into BENCHMARKS.md unchanged): idle sessions, relay at
 * `--rooms`, relay at `--big-rooms`.
 *
 * @module
 */

import type { CompareOptions, ServerKind } from "./args.ts";
import type { IdleFigures, Latency, RelayFigures } from "./figures.ts";
import type { Sample } from "./sampler.ts";

/** Everything measured on one server. */
export interface ServerResult {
  readonly kind: ServerKind;
  readonly label: string;
  idle?: IdleFigures;
  relay?: RelayFigures;
  big?: RelayFigures;
  /** Phases that failed, with why. */
  readonly failures: string[];
  /** The server's `/proc` samples of the relay phases, for the JSON report. */
  samples?: { relay?: Sample[]; big?: Sample[] };
}

/** Renders rows under a header as an aligned Markdown table. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${widths.map((w, i) => (cells[i] ?? "").padEnd(w)).join(" | ")} |`;
  return [line(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)].join("\n");
}

const dash = "\u2014";
/** A number with at most `digits` decimals and thousands separators, or a dash. */
export function num(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined ? dash : v.toLocaleString("en-US", { maximumFractionDigits: digits });
}
const ms = (v: number | null) => (v === null ? dash : `${num(v, v < 100 ? 1 : 0)} ms`);
const pct = (v: number | null) => (v === null ? dash : `${num(v, 0)} %`);
const lat = (l: Latency) => `${ms(l.p50)} / ${ms(l.p99)}`;

function idleRow(r: ServerResult): string[] {
  const f = r.idle!;
  const short = f.established < f.sessions ? ` (${num(f.established, 0)} up)` : "";
  return [
    r.label,
    num(f.rssAfterStartMiB),
    `${num(f.rssAtSessionsMiB)}${short}`,
    num(f.kibPerSession),
    `${ms(f.ping.p99)}${f.pingTimeouts ? ` (${f.pingTimeouts} timeouts)` : ""}`,
    pct(f.serverCpuPercent),
    String(f.errors),
  ];
}

function relayRow(r: ServerResult, f: RelayFigures, big: boolean): string[] {
  const notes = [
    f.unfinishedSetup ? `${num(f.unfinishedSetup, 0)} unfinished at the setup limit` : "",
    f.failedRound ? `${num(f.failedRound, 0)} failed a round` : "",
  ].filter(Boolean);
  const ready = `${num(f.ready, 0)}${notes.length ? ` (${notes.join(", ")})` : ""}`;
  const cpu = `${pct(f.serverCpuPercent)} (${pct(f.serverMainThreadPercent)})`;
  const common = [r.label, ready, num(f.relayedPerSec, 0), lat(f.relay), cpu];
  // The generator measures the latency: its own event-loop lag is part of every figure it takes.
  const generator = `${pct(f.generatorCpuPercent)} (${
    f.generatorLagP99 === null ? dash : `${num(f.generatorLagP99)} ms`
  })`;
  if (big) {
    return [
      ...common,
      `${pct(f.machinePercent)}${f.otherPercent === null ? "" : ` (other ${pct(f.otherPercent)})`}`,
      `${num(f.rssEndMiB)} (${num(f.rssPeakMiB)})`,
      generator,
      num(f.errors, 0),
      f.saturated,
    ];
  }
  return [
    ...common,
    `${num(f.rssSteadyStartMiB)} \u2192 ${num(f.rssAfterFirstRoundMiB)} \u2192 ${num(f.rssEndMiB)} (${
      num(f.rssPeakMiB)
    })`,
    f.rssSlopeMiBPerMin === null ? dash : `${f.rssSlopeMiBPerMin >= 0 ? "+" : ""}${num(f.rssSlopeMiBPerMin, 2)}`,
    generator,
    num(f.errors, 0),
  ];
}

/** The three tables (only those with figures), each under a heading line. */
export function renderComparison(results: readonly ServerResult[], o: CompareOptions): string {
  const out: string[] = [];
  const idle = results.filter((r) => r.idle);
  if (idle.length) {
    const n = num(o.sessions, 0);
    out.push(
      `Idle: RSS in MiB after start (${o.settle} s) and with ${n} logged-in sessions pinging every 3 s (${o.hold} s hold)`,
      "",
      markdownTable(
        [
          "Server",
          "RSS after start",
          `${n} idle sessions`,
          "KiB per session",
          `ping p99 at ${n}`,
          "server CPU",
          "errors",
        ],
        idle.map(idleRow),
      ),
    );
  }
  const relay = results.filter((r) => r.relay);
  if (relay.length) {
    out.push(
      "",
      `Relay: ${num(o.rooms, 0)} rooms × (8 players + 1 monitor) at client rates, ${o.relayDuration} s after setup, ` +
        `${o.roundSecs} s rounds; CPU in % of one core (process, main thread); RSS in MiB`,
      "",
      markdownTable(
        [
          "Server",
          "rooms ready",
          "relayed msgs/s",
          "relay p50 / p99",
          "server CPU (main)",
          "RSS start \u2192 after round 1 \u2192 end (peak)",
          "RSS MiB/min after round 1",
          "generator CPU (lag p99)",
          "errors",
        ],
        relay.map((r) => relayRow(r, r.relay!, false)),
      ),
    );
  }
  const big = results.filter((r) => r.big);
  if (big.length) {
    out.push(
      "",
      `Big: ${num(o.bigRooms, 0)} rooms × (8 players + 1 monitor), ${o.bigDuration} s after setup; ` +
        `machine CPU in % of one core (${navigator.hardwareConcurrency} cores = ${
          navigator.hardwareConcurrency * 100
        } %)`,
      "",
      markdownTable(
        [
          "Server",
          "rooms ready",
          "relayed msgs/s",
          "relay p50 / p99",
          "server CPU (main)",
          "machine CPU",
          "RSS end (peak)",
          "generator CPU (lag p99)",
          "errors",
          "saturates first",
        ],
        big.map((r) => relayRow(r, r.big!, true)),
      ),
    );
  }
  const kinds = (k: Record<string, number>) => Object.entries(k).map(([name, n]) => `${name} ×${n}`).join(", ");
  const errors = results.flatMap((r) => {
    const phases: [string, IdleFigures | RelayFigures | undefined][] = [["idle", r.idle], ["relay", r.relay], [
      "big",
      r.big,
    ]];
    return phases.flatMap(([phase, f]) => f?.errors ? [`- ${r.label}, ${phase}: ${kinds(f.errorKinds)}`] : []);
  });
  if (errors.length) out.push("", "Errors by kind:", ...errors);
  const failed = results.filter((r) => r.failures.length);
  if (failed.length) {
    out.push(
      "",
      "Failed phases:",
      ...failed.flatMap((r) => r.failures.map((f) => `- ${r.label}: ${f}`)),
    );
  }
  return out.join("\n");
}
