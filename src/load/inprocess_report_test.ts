import { deepEqual, equal, throws } from "node:assert/strict";
import {
  BENCHMARK_DEFAULTS,
  describeBenchmark,
  MAX_BENCH_ROOMS,
  MAX_BENCH_SECS,
  parseBenchmarkArgs,
} from "./inprocess_report.ts";

Deno.test("parseBenchmarkArgs reads the simple form", () => {
  deepEqual(parseBenchmarkArgs([]), { ...BENCHMARK_DEFAULTS, durationSecs: 30, rooms: 100 });
  const p = parseBenchmarkArgs(["10", "5"]);
  equal(p.mode, "fixed");
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
  equal(r.rooms, MAX_BENCH_ROOMS, "a ramp is limited by its caps, not by 100 rooms");
  equal(r.durationSecs, BENCHMARK_DEFAULTS.durationSecs);
  deepEqual(parseBenchmarkArgs(["run", "ramp", "--cpu=90", "--ram=2048m", "--round-secs", "5"]), {
    ...BENCHMARK_DEFAULTS,
    mode: "ramp",
    rooms: MAX_BENCH_ROOMS,
    cpuPercent: 90,
    rssMb: 2048,
    roundSecs: 5,
  });
  // The earlier positional form still works, and flags may follow it.
  deepEqual(parseBenchmarkArgs(["run", "fixed", "45", "12", "--players", "3"]), {
    ...BENCHMARK_DEFAULTS,
    durationSecs: 45,
    rooms: 12,
    playersPerRoom: 3,
  });
  equal(parseBenchmarkArgs(["run", "ramp", "2m"]).durationSecs, 120);
});

Deno.test("parseBenchmarkArgs refuses bad input with Cannot … messages naming the problem", async (t) => {
  const cases: [string[], RegExp][] = [
    [["x", "y", "z"], /expected \[dur_s=30\] \[rooms=100\]/],
    [["0"], /"0"/],
    [["30", "6000"], /"30 6000"/],
    [[String(MAX_BENCH_SECS + 1)], /expected \[dur_s=30\]/],
    [["run"], /mode must be fixed or ramp, not ""/],
    [["run", "slow"], /mode must be fixed or ramp, not "slow"/],
    [["run", "fixed", "--rooms"], /--rooms needs a value/],
    [["run", "ramp", "--ram", "lots"], /--ram: "lots" is not a number/],
    [["run", "ramp", "--cpu", "0"], /--cpu: 0 is outside 1\.\.1000/],
    [["run", "fixed", "--rooms", "6000"], /--rooms: 6000 is outside 1\.\.5000/],
    [["run", "fixed", "--fast"], /unexpected "--fast" \(expected run fixed\|ramp/],
    [["run", "fixed", "10", "3", "7"], /unexpected "7"/],
    [["run", "fixed", "10", "2.5"], /rooms "2.5" is not an integer/],
    [["run", "fixed", "4000"], /dur_s: 4000 is outside 1\.\.3600/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" ") || "(none)", () => {
      throws(
        () => parseBenchmarkArgs(args),
        (e) => e instanceof RangeError && e.message.startsWith("Cannot ") && message.test(e.message),
      );
    });
  }
});

Deno.test("describeBenchmark says what will run", () => {
  equal(describeBenchmark(parseBenchmarkArgs(["5", "2"])), "benchmark fixed: 5 s, 2 rooms, 2 players per room");
  equal(
    describeBenchmark(parseBenchmarkArgs(["run", "ramp", "--cpu", "90", "--ram", "2048m"])),
    "benchmark ramp: 60 s, up to 5000 rooms, until CPU 90 % or RSS 2048 MB, 2 players per room",
  );
});
