/**
 * The in-process benchmark (spec 3 §4.2 `benchmark`, §4.9
 * `test.run_benchmark`) of the wired process, loaded on its first run: the
 * grammar (usage, parsing, the one-line description) is at hand from the
 * start, the runner and its virtual sessions are imported only when a
 * benchmark actually runs (issue 15 "Load on demand").
 *
 * @module
 */

import type { BenchmarkDeps } from "./load/inprocess.ts";
import type { InProcessBenchmarks } from "./load/inprocess_host.ts";
import {
  BENCHMARK_RUN_USAGE,
  type BenchmarkOptions,
  describeBenchmark,
  parseBenchmarkArgs,
} from "./load/inprocess_report.ts";
import type { BenchmarkRunner } from "./ops/mod.ts";
import type { GameServer } from "./server/mod.ts";

/** The process's benchmark: its runner for the operations layer, and a wait for a running one to finish. */
export interface AppBenchmarks {
  readonly runner: BenchmarkRunner;
  /** Resolves once no benchmark is running (after its cleanup and report). */
  idle(): Promise<void>;
}

/** One benchmark at a time against `server` (`deps.signal` winds a running one down), loaded on the first run. */
export function lazyBenchmarks(server: GameServer, deps: BenchmarkDeps): AppBenchmarks {
  let host: Promise<InProcessBenchmarks> | null = null;
  const load = () => host ??= import("./load/inprocess_host.ts").then((m) => new m.InProcessBenchmarks(server, deps));
  return {
    runner: {
      usage: BENCHMARK_RUN_USAGE,
      parse: (words) => parseBenchmarkArgs(words),
      describe: (plan) => describeBenchmark(plan as BenchmarkOptions),
      run: async (plan) => (await load()).runner.run(plan),
    },
    idle: async () => {
      if (host) await (await host).idle();
    },
  };
}
