/**
 * Journal tools and subsystems that live elsewhere (spec 3 §4.2): `wal
 * inspect`, `dead-letter list|replay` (durable store), `benchmark`
 * (in-process load test; the `test.run_benchmark` operation, whose grammar
 * the benchmark itself owns). Plugins: `cmd_plugins.ts`; self-update: its
 * own commands.
 *
 * @module
 */

import type { StoredDeadLetter } from "../ops/mod.ts";
import type { CommandCall, CommandSpec } from "./registry.ts";
import { fmtTime, kvLines } from "./text.ts";

/** Bounds of the simple `benchmark [dur_s] [rooms]` form (the benchmark's own parser checks them again). */
const MAX_BENCH_SECS = 3600;
const MAX_BENCH_ROOMS = 5000;

/** The record type (`t`) of a journaled body, or `unparseable`. */
export function recordType(body: string): string {
  try {
    const t = (JSON.parse(body) as { t?: unknown })?.t;
    return typeof t === "string" ? t : "unknown";
  } catch {
    return "unparseable";
  }
}

/** The journal, benchmark and placeholder commands; `benchmarkUsage` is the benchmark's `run` grammar. */
export function journalCommands(benchmarkUsage = "run fixed|ramp [options]"): CommandSpec[] {
  const group = "Journal and tools";
  // The words go to the benchmark's own parser (spec 3 §4.2: `run fixed|ramp` flags, simple form).
  const bench = async (call: CommandCall, words: string[]) => {
    const r = await call.op("test.run_benchmark", { args: words }) as { description: string; lines: string[] };
    return [r.description, ...r.lines];
  };
  const duration = { name: "dur_s", kind: "int", optional: true, min: 1, max: MAX_BENCH_SECS } as const;
  const rooms = { name: "rooms", kind: "int", optional: true, min: 1, max: MAX_BENCH_ROOMS } as const;
  return [
    {
      name: "wal inspect",
      help: "the journal: files, sequence range, records not yet applied",
      group,
      run: async (
        _args,
        call,
      ) => ["journal:", ...kvLines(await call.op("wal.inspect", { limit: 20 }) as Record<string, unknown>)],
    },
    {
      name: "dead-letter list",
      args: [{ name: "limit", kind: "int", optional: true, min: 1, max: 1000 }],
      help: "journal records the database refused",
      group,
      run: async (args, call) => {
        const { items } = await call.op("dead_letter.list", { limit: args.optInt("limit") ?? 50 }) as {
          items: StoredDeadLetter[];
        };
        if (!items.length) return ["no dead letters"];
        return items.map((d) =>
          `seq ${d.seq}  ${recordType(d.body)}  ${d.attempts} attempts  failed ${fmtTime(d.failed_at)}  ${d.error}`
        );
      },
    },
    {
      name: "dead-letter replay",
      help: "apply the dead letters again",
      group,
      run: async (_args, call) => {
        const r = await call.op("dead_letter.replay") as {
          replayed: number;
          failed: { seq: number; error?: string }[];
        };
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
      help: `in-process load test on virtual sessions and bench- rooms, cleaned up afterwards: ${benchmarkUsage}`,
      group,
      run: (args, call) => bench(call, ["run", args.str("mode"), ...(args.optStr("options")?.split(/\s+/) ?? [])]),
    },
    {
      name: "benchmark",
      args: [duration, rooms],
      help: "simple variant: fixed load for dur_s seconds (30) on rooms rooms (100)",
      group,
      run: (args, call) =>
        bench(call, [args.optInt("dur_s"), args.optInt("rooms")].flatMap((v) => v === undefined ? [] : [String(v)])),
    },
  ];
}
