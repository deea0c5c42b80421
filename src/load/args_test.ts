import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { loadUsage, parseLoadArgs, type RoomsOptions, type SessionsOptions, UsageError } from "./args.ts";

Deno.test("parseLoadArgs returns null for help", () => {
  equal(parseLoadArgs([]), null);
  equal(parseLoadArgs(["--help"]), null);
  equal(parseLoadArgs(["rooms", "-h"]), null);
});

Deno.test("parseLoadArgs fills defaults per scenario", () => {
  const o = parseLoadArgs(["sessions"]) as SessionsOptions;
  equal(o.scenario, "sessions");
  equal(o.host, "127.0.0.1");
  equal(o.port, 12346);
  equal(o.sessions, 1000);
  equal(o.pingInterval, 3);
  equal(o.progress, true);
  equal(o.spawn, false);
  equal(o.upstream, null);
  deepEqual(o.serverArgs, []);
});

Deno.test("parseLoadArgs reads values, = syntax, durations, booleans and server flags", () => {
  const o = parseLoadArgs([
    "rooms",
    "--rooms=1000",
    "--players",
    "8",
    "--duration",
    "2m",
    "--round-secs",
    "500ms",
    "--no-monitor",
    "--no-progress",
    "--spawn",
    "--cpu-prof",
    "/tmp/p",
    "--",
    "--log-level",
    "debug",
  ]) as RoomsOptions;
  equal(o.rooms, 1000);
  equal(o.players, 8);
  equal(o.duration, 120);
  equal(o.roundSecs, 0.5);
  equal(o.monitor, false);
  equal(o.progress, false);
  equal(o.cpuProf, "/tmp/p");
  deepEqual(o.serverArgs, ["--log-level", "debug"]);
});

Deno.test("parseLoadArgs drops the leading -- that deno task passes through", () => {
  const o = parseLoadArgs(["--", "sessions", "--sessions", "5", "--spawn", "--", "--log-level", "debug"]);
  equal(o?.scenario, "sessions");
  equal((o as SessionsOptions).sessions, 5);
  deepEqual(o?.serverArgs, ["--log-level", "debug"], "a later -- still starts the server flags");
  equal(parseLoadArgs(["--"]), null);
  equal(parseLoadArgs(["--", "sessions", "--help"]), null);
  throws(() => parseLoadArgs(["--", "--", "sessions"]), /Unknown scenario: "--"/);
});

Deno.test("parseLoadArgs rejects bad input with a UsageError naming the problem", async (t) => {
  const cases: [string[], RegExp][] = [
    [["nope"], /Unknown scenario: "nope"/],
    [["sessions", "--rooms", "3"], /Unknown option for sessions: --rooms/],
    [["sessions", "--sessions"], /a value is missing/],
    [["sessions", "--sessions", "abc"], /"abc" is not a number/],
    [["sessions", "--sessions", "1.5"], /not an integer/],
    [["sessions", "--sessions", "0"], /outside 1\.\.28000/],
    [["sessions", "--spawn=yes"], /takes no value/],
    [["sessions", "--cpu-prof", "x"], /needs --spawn/],
    [["sessions", "--", "--x"], /need --spawn/],
    [["sessions", "--server-env", "A=1"], /--server-env: it needs --spawn/],
    [["sessions", "--spawn", "--server-env", "1A=x"], /expected K=V/],
    [["rooms", "--id-base", "999990", "--rooms", "10"], /player ids ≤ 999999/],
    [["rooms", "--monitor-base", "100005"], /overlap player ids/],
    [["logins", "--phases", "cold,hot"], /cold, warm/],
    [["logins", "--duration", "soon"], /not a number/],
  ];
  for (const [args, message] of cases) {
    await t.step(
      args.join(" "),
      () => throws(() => parseLoadArgs(args), (e) => e instanceof UsageError && message.test(e.message)),
    );
  }
});

Deno.test("loadUsage lists every scenario and option", () => {
  const text = loadUsage();
  for (const word of ["sessions", "rooms", "logins", "--ramp-per-sec", "--warm-users", "--monitor-base", "--spawn"]) {
    ok(text.includes(word), word);
  }
});
