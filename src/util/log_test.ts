import { deepEqual, equal, match } from "node:assert/strict";
import { LogHub } from "./log.ts";

Deno.test("LogHub formats text lines with fields and filters by level", () => {
  const lines: string[] = [];
  const hub = new LogHub({ level: "info", sink: (l) => lines.push(l), now: () => Date.UTC(2026, 0, 1) });
  const log = hub.logger({ session: 3 });
  log.debug("hidden");
  log.info("user joined", { user: 100, room: "abc", note: "two words" });
  equal(lines.length, 1);
  equal(lines[0], '2026-01-01T00:00:00.000Z INFO  user joined session=3 user=100 room=abc note="two words"');
});

Deno.test("LogHub json format, child loggers, history and listeners", () => {
  const seen: string[] = [];
  const hub = new LogHub({ format: "json", sink: () => {}, historySize: 2 });
  const unsubscribe = hub.subscribe((r) => seen.push(r.msg));
  const child = hub.logger().child({ room: "r1" });
  child.warn("one");
  child.error("two", { err: new Error("boom") });
  unsubscribe();
  child.info("three");
  deepEqual(seen, ["one", "two"]);
  deepEqual(hub.history().map((r) => r.msg), ["two", "three"]);
  match(hub.history()[0]!.line, /"err":"boom"/);
  match(hub.history()[0]!.line, /"room":"r1"/);
});
