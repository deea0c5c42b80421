import { deepEqual, equal, ok } from "node:assert/strict";
import { parseLoadArgs } from "./args.ts";
import { ErrorTally } from "./clients.ts";
import { buildReport, renderReport, renderTable, REPORT_FORMAT } from "./report.ts";
import { Histogram } from "./stats.ts";

Deno.test("renderTable aligns two columns under a title", () => {
  const text = renderTable("title", [["a", "1"], ["longer key", "22"]]);
  const lines = text.split("\n");
  equal(new Set(lines.map((l) => l.length)).size, 1, "every line has the same width");
  ok(lines.some((l) => l === "| longer key | 22    |"));
});

Deno.test("buildReport adds the error and lag rows and keeps the figures", () => {
  const errors = new ErrorTally();
  errors.add("connect", "refused");
  errors.add("connect", "refused again");
  const lag = new Histogram();
  lag.record(3);
  const report = buildReport({
    options: parseLoadArgs(["sessions", "--sessions", "5"])!,
    startedAt: new Date(0),
    durationMs: 1234.4,
    interrupted: false,
    machine: { cpuModel: "cpu", cpus: 2, memTotalMb: 1, os: "os", kernel: null, deno: "2", v8: "15" },
    target: { host: "127.0.0.1", port: 1, pid: null, spawned: false, upstream: "http://x" },
    generatorLag: lag.summary(),
    machineLoad: { loadBefore: [0.1, 0.2, 0.3], loadAfter: null, otherCpuPercent: 3.5 },
  }, { results: { x: 1 }, rows: [["metric", "value"]], errors });
  equal(report.format, REPORT_FORMAT);
  equal(report.durationMs, 1234);
  deepEqual(report.results, { x: 1 });
  deepEqual(report.errors.byKind, { connect: 2 });
  deepEqual(report.table.map(([k]) => k), [
    "metric",
    "errors",
    "generator event-loop lag p99 / max",
    "other processes' CPU (machine)",
  ]);
  equal(report.table[3]![1], "3.5 % of one core");
  equal(report.table[1]![1], "connect ×2");
  const text = renderReport(report);
  ok(text.includes("sessions — 127.0.0.1:1"));
  ok(text.includes("connect: refused"));
  // The JSON form round-trips.
  deepEqual(JSON.parse(JSON.stringify(report)).options.sessions, 5);
});

Deno.test("error tally keeps the first messages and the first of a kind that comes after a flood", () => {
  const errors = new ErrorTally();
  for (let i = 0; i < 30; i++) errors.add("Authenticate/timeout", `no reply ${i}`);
  errors.add("Played/rejected", "upstream said 502");
  errors.add("Played/rejected", "upstream said 503");
  const json = errors.toJSON();
  deepEqual(json.byKind, { "Authenticate/timeout": 30, "Played/rejected": 2 });
  equal(json.samples.length, 21);
  equal(json.samples.at(-1), "Played/rejected: upstream said 502");
});
