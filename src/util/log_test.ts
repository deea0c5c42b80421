import { deepEqual, equal, match } from "node:assert/strict";
import { hasControlChars } from "./control_chars.ts";
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

Deno.test("LogHub text lines quote and escape control characters from user values", () => {
  const lines: string[] = [];
  const hub = new LogHub({ sink: (l) => lines.push(l), now: () => Date.UTC(2026, 0, 1) });
  const log = hub.logger();
  // An OpenUDS client_name or player name that tries to drive the terminal: ESC, one-byte CSI, BEL, DEL.
  log.info("client connected", { client: "evil\x1b]0;owned\x07", name: "x\x9b2J", del: "a\x7fb", plain: "ok" });
  log.info("hello \x1b[2Jthere\nsecond line");
  equal(
    lines[0],
    "2026-01-01T00:00:00.000Z INFO  client connected " +
      'client="evil\\u001b]0;owned\\u0007" name="x\\u009b2J" del="a\\u007fb" plain=ok',
  );
  equal(lines[1], "2026-01-01T00:00:00.000Z INFO  hello \\x1b[2Jthere\nsecond line");
  for (const line of lines) equal(hasControlChars(line.replace("\n", "")), false, JSON.stringify(line));
});

Deno.test("LogHub json lines escape C1 controls too", () => {
  const lines: string[] = [];
  const hub = new LogHub({ format: "json", sink: (l) => lines.push(l) });
  hub.logger().info("named", { name: "a\x9bb\x1bc" });
  equal(hasControlChars(lines[0]!), false);
  equal((JSON.parse(lines[0]!) as { name: string }).name, "a\x9bb\x1bc");
});

Deno.test("LogHub json lines keep time, level and msg, and survive bigints and cycles", () => {
  const lines: string[] = [];
  const hub = new LogHub({ format: "json", sink: (l) => lines.push(l), now: () => Date.UTC(2026, 0, 1) });
  const cyclic: Record<string, unknown> = { name: "a" };
  cyclic.self = cyclic;
  const shared = { n: 1 };
  hub.logger({ room: "r1" }).warn("odd fields", {
    level: "error",
    msg: "forged",
    big: 12345678901234567890n,
    cyclic,
    twice: [shared, shared],
    error: new Error("boom"),
  });
  const parsed = JSON.parse(lines[0]!);
  deepEqual(parsed, {
    time: "2026-01-01T00:00:00.000Z",
    level: "warn",
    msg: "odd fields",
    room: "r1",
    field_level: "error",
    field_msg: "forged",
    big: "12345678901234567890",
    cyclic: { name: "a", self: "[circular]" },
    twice: [{ n: 1 }, { n: 1 }],
    error: "boom",
  });
});
