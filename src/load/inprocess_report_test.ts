import { equal, ok, throws } from "node:assert/strict";
import { BENCHMARK_DEFAULTS, MAX_BENCH_ROOMS, parseBenchmarkArgs } from "./inprocess_report.ts";

Deno.test("parseBenchmarkArgs reads the simple form", () => {
  const o = parseBenchmarkArgs([]);
  equal(o.mode, "fixed");
  equal(o.durationSecs, 30);
  equal(o.rooms, 100);
  const p = parseBenchmarkArgs(["10", "5"]);
  equal(p.durationSecs, 10);
  equal(p.rooms, 5);
});

Deno.test("parseBenchmarkArgs reads run fixed and run ramp", () => {
  const f = parseBenchmarkArgs(["run", "fixed", "--playing-rooms", "20", "--duration", "10m", "--players", "4"]);
  equal(f.rooms, 20);
  equal(f.durationSecs, 600);
  equal(f.playersPerRoom, 4);
  const r = parseBenchmarkArgs(["run", "ramp", "--cpu", "80", "--ram", "1g"]);
  equal(r.mode, "ramp");
  equal(r.cpuPercent, 80);
  equal(r.rssMb, 1024);
  equal(r.rooms, MAX_BENCH_ROOMS);
  equal(r.durationSecs, BENCHMARK_DEFAULTS.durationSecs);
});

Deno.test("parseBenchmarkArgs refuses bad input with Cannot … messages", () => {
  for (
    const args of [["x", "y", "z"], ["0"], ["30", "6000"], ["run", "slow"], ["run", "fixed", "--rooms"], [
      "run",
      "ramp",
      "--ram",
      "lots",
    ]]
  ) {
    throws(() => parseBenchmarkArgs(args), (e) => e instanceof RangeError && e.message.startsWith("Cannot "));
  }
  ok(true);
});
