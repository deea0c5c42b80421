/**
 * The console's benchmark runner (spec 3 §4.2 `benchmark`): one in-process
 * benchmark at a time per server -- the state lives on this instance, made
 * once per process by `src/app.ts` -- stopped by the process's stop signal,
 * with a way for shutdown to wait until the run has cleaned up and stored its
 * report.
 *
 * @module
 */

import type { BenchmarkRunner } from "../ops/mod.ts";
import type { GameServer } from "../server/mod.ts";
import { type BenchmarkDeps, runInProcessBenchmark } from "./inprocess.ts";
import {
  BENCHMARK_RUN_USAGE,
  BenchmarkError,
  type BenchmarkOptions,
  type BenchmarkReport,
  describeBenchmark,
  formatBenchmarkReport,
  parseBenchmarkArgs,
} from "./inprocess_report.ts";

/**
 * The operations layer's benchmark (`test.run_benchmark`, console
 * `benchmark`): this module's grammar and description around `run`.
 */
export function benchmarkRunner(
  run: (options: BenchmarkOptions) => Promise<{ readonly lines: readonly string[]; readonly report?: unknown }>,
): BenchmarkRunner {
  return {
    usage: BENCHMARK_RUN_USAGE,
    parse: (words) => parseBenchmarkArgs(words),
    describe: (plan) => describeBenchmark(plan as BenchmarkOptions),
    run: (plan) => run(plan as BenchmarkOptions),
  };
}

/** Runs in-process benchmarks against one server, one at a time. */
export class InProcessBenchmarks {
  readonly #server: GameServer;
  readonly #deps: BenchmarkDeps;
  #current: Promise<BenchmarkReport> | null = null;

  /** `deps.signal` should fire when the process stops: a running benchmark then winds down and cleans up. */
  constructor(server: GameServer, deps: BenchmarkDeps) {
    this.#server = server;
    this.#deps = deps;
  }

  /** True while a benchmark runs (cleanup included). */
  get running(): boolean {
    return this.#current !== null;
  }

  /** Runs one benchmark; rejects with a {@link BenchmarkError} when one is running or the process is stopping. */
  run(options: Partial<BenchmarkOptions>): Promise<BenchmarkReport> {
    if (this.#current) {
      return Promise.reject(new BenchmarkError("BUSY", "Cannot run the benchmark: a benchmark is already running"));
    }
    if (this.#deps.signal?.aborted) {
      return Promise.reject(new BenchmarkError("STOPPING", "Cannot run the benchmark: the server is stopping"));
    }
    const run = runInProcessBenchmark(this.#server, options, this.#deps);
    this.#current = run;
    const clear = () => {
      if (this.#current === run) this.#current = null;
    };
    run.then(clear, clear);
    return run;
  }

  /** The operations layer's `BenchmarkRunner`: runs, then renders the report as lines. */
  readonly runner: BenchmarkRunner = benchmarkRunner(async (options) => {
    const report = await this.run(options);
    return { lines: formatBenchmarkReport(report), report };
  });

  /** Resolves once no benchmark is running (after its cleanup and report). */
  async idle(): Promise<void> {
    await this.#current?.catch(() => {});
  }
}
