import assert from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { FailureLog } from "./failure_log.ts";

Deno.test("failure log: the first failure at once, then one count line per interval, then one line when it works", () => {
  const clock = new ManualClock();
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const f = new FailureLog({ log: logs.logger(), clock, message: "write failed", recovered: "writes work again" });
  f.succeeded();
  assert.equal(logs.history().length, 0, "nothing to say while it works");
  for (let i = 0; i < 1000; i++) f.failed({ seq: i });
  assert.deepEqual(logs.history().map((r) => [r.level, r.msg, r.fields?.seq]), [["error", "write failed", 0]]);
  clock.advance(9_999);
  f.failed({ seq: 1000 });
  assert.equal(logs.history().length, 1, "within the interval: counted only");
  clock.advance(1);
  f.failed({ seq: 1001 });
  const [, summary] = logs.history();
  assert.equal(summary?.msg, "write failed (still failing)");
  assert.deepEqual([summary?.fields?.failures, summary?.fields?.in_ms, summary?.fields?.failures_total], [
    1001,
    10_000,
    1002,
  ]);
  assert.equal(f.failing, 1002);
  clock.advance(500);
  f.failed({ seq: 1002 });
  f.succeeded();
  const last = logs.history().at(-1);
  assert.equal(last?.msg, "writes work again");
  assert.deepEqual(
    [last?.level, last?.fields?.failures_total, last?.fields?.failures_not_logged, last?.fields?.for_ms],
    [
      "warn",
      1003,
      1,
      10_500,
    ],
  );
  assert.equal(f.failing, 0);
  f.failed({ seq: 2000 });
  assert.equal(logs.history().at(-1)?.msg, "write failed", "a new run starts with its first failure");
});
