/**
 * Journal tools and subsystems that live elsewhere (spec 3 §4.2): `wal
 * inspect`, `dead-letter list|replay` (durable store), `benchmark`
 * (in-process load test), and `plugin`, `extension`, `update`, which say
 * plainly that their subsystem is not part of this process yet.
 *
 * @module
 */

import {
  BENCHMARK_RUN_USAGE,
  BenchmarkError,
  describeBenchmark,
  MAX_BENCH_ROOMS,
  MAX_BENCH_SECS,
  parseBenchmarkArgs,
} from "../load/inprocess_report.ts";
import { CommandError, invalid, unavailable } from "./errors.ts";
import type { CommandSpec } from "./registry.ts";
import type { ConsoleServices } from "./services.ts";
import { fmtTime, kvLines } from "./text.ts";

/** Said by journal commands in memory-only mode. */
export const NO_PERSISTENCE = "persistence is not enabled: the server runs in memory-only mode (no journal)";

/** Placeholders that a plugin host or updater replaces with `registry.unregister(name)` + `register`. */
export const PLACEHOLDER_COMMANDS = ["plugin", "extension", "update"] as const;

/** The record type (`t`) of a journaled body, or `unparseable`. */
export function recordType(body: string): string {
  try {
    const t = (JSON.parse(body) as { t?: unknown })?.t;
    return typeof t === "string" ? t : "unknown";
  } catch {
    return "unparseable";
  }
}

/** The journal, benchmark and placeholder commands. */
export function journalCommands(s: ConsoleServices): CommandSpec[] {
  const group = "Journal and tools";
  const store = () => s.deps.persistence ?? unavailable(NO_PERSISTENCE);
  // `words` are parsed by the load module's one parser (spec 3 §4.2: `run fixed|ramp` flags, simple form).
  const bench = async (words: string[]) => {
    const run = s.deps.benchmark ?? unavailable("the in-process benchmark is not available in this process");
    if (s.core.shuttingDown) throw new CommandError("INVALID_STATE", "the server is shutting down");
    let o;
    try {
      o = parseBenchmarkArgs(words);
    } catch (error) {
      if (error instanceof RangeError) invalid(error.message);
      throw error;
    }
    try {
      return [describeBenchmark(o), ...(await run(o)).lines];
    } catch (error) {
      if (!(error instanceof BenchmarkError)) throw error;
      throw new CommandError(error.code === "BUSY" ? "CONFLICT" : "INVALID_STATE", error.message);
    }
  };
  const duration = { name: "dur_s", kind: "int", optional: true, min: 1, max: MAX_BENCH_SECS } as const;
  const rooms = { name: "rooms", kind: "int", optional: true, min: 1, max: MAX_BENCH_ROOMS } as const;
  return [
    {
      name: "wal inspect",
      help: "the journal: files, sequence range, records not yet applied",
      group,
      run: async () => ["journal:", ...kvLines(await store().walInspect(20) as Record<string, unknown>)],
    },
    {
      name: "dead-letter list",
      args: [{ name: "limit", kind: "int", optional: true, min: 1, max: 1000 }],
      help: "journal records the database refused",
      group,
      run: async (args) => {
        const rows = await store().deadLetters(args.optInt("limit") ?? 50);
        if (!rows.length) return ["no dead letters"];
        return rows.map((d) =>
          `seq ${d.seq}  ${recordType(d.body)}  ${d.attempts} attempts  failed ${fmtTime(d.failed_at)}  ${d.error}`
        );
      },
    },
    {
      name: "dead-letter replay",
      help: "apply the dead letters again",
      group,
      run: async () => {
        const r = await store().replayDeadLetters();
        return [
          `replayed ${r.replayed}; ${r.failed.length} failed again and stay`,
          ...r.failed.map((f) => `  seq ${f.seq}: ${f.error ?? "failed"}`),
        ];
      },
    },
    {
      name: "benchmark run",
      args: [{ name: "mode", kind: "choice", choices: ["fixed", "ramp"] }, {
        name: "options",
        kind: "text",
        optional: true,
      }],
      help: `in-process load test on virtual sessions and bench- rooms, cleaned up afterwards: ${BENCHMARK_RUN_USAGE}`,
      group,
      run: (args) => bench(["run", args.str("mode"), ...(args.optStr("options")?.split(/\s+/) ?? [])]),
    },
    {
      name: "benchmark",
      args: [duration, rooms],
      help: "simple variant: fixed load for dur_s seconds (30) on rooms rooms (100)",
      group,
      run: (args) =>
        bench([args.optInt("dur_s"), args.optInt("rooms")].flatMap((v) => v === undefined ? [] : [String(v)])),
    },
    {
      name: "plugin",
      args: [{ name: "subcommand", kind: "text", optional: true }],
      help: "plugins: list|enable|disable|remove|reload|info|call",
      group,
      run: () => unavailable("the plugin host is not part of this build yet"),
    },
    {
      name: "extension",
      args: [{ name: "subcommand", kind: "text", optional: true }],
      help: "extension data: list|get",
      group,
      run: () => unavailable("extension data needs the plugin host, which is not part of this build yet"),
    },
    {
      name: "update",
      args: [{ name: "subcommand", kind: "text", optional: true }],
      help: "self-update: check|apply|force|schedule|cancel|auto [on|off]",
      group,
      run: () => unavailable("self-update is not part of this build yet"),
    },
  ];
}
