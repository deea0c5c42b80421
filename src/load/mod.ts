/**
 * Load generation and benchmarks: `chorus load <scenario>` drives real TCP
 * clients against any Phira-compatible server (`sessions`, `rooms`, `logins`, `sse`, and `http` for HTTP paths),
 * and {@link runInProcessBenchmark} runs virtual sessions inside a live server
 * for the console `benchmark` command.
 *
 * @example Usage
 * ```ts ignore
 * import { runLoad } from "./mod.ts";
 * Deno.exit(await runLoad(["sessions", "--spawn", "--sessions", "1000"]));
 * ```
 *
 * @module
 */

export { runLoad, startScenario } from "./cli.ts";
export * from "./args.ts";
export * from "./report.ts";
export * from "./scenario.ts";
export * from "./stats.ts";
export { BENCH_ID_BASE, type BenchmarkDeps, runInProcessBenchmark } from "./inprocess.ts";
export { benchmarkRunner, InProcessBenchmarks } from "./inprocess_host.ts";
export * from "./inprocess_report.ts";
