import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { compareUsage, defaultOptions, parseCompareArgs, UsageError } from "./args.ts";

const T = ["--tphira-dir", "/opt/tphira"];

Deno.test("parseCompareArgs returns null for help and fills the issue's sizes by default", () => {
  equal(parseCompareArgs(["--help"]), null);
  equal(parseCompareArgs(["--", "-h"]), null);
  const o = parseCompareArgs(T)!;
  deepEqual(o, { ...defaultOptions(), tphiraDir: "/opt/tphira" });
  deepEqual(o.servers, ["chorus", "tphira"]);
  deepEqual(o.phases, ["idle", "relay", "big"]);
  equal(o.sessions, 10000);
  equal(o.rooms, 300);
  equal(o.relayDuration, 600);
  equal(o.bigRooms, 1000);
});

Deno.test("parseCompareArgs reads values, = syntax, durations and lists; a leading -- is dropped", () => {
  const o = parseCompareArgs([
    "--",
    ...T,
    "--servers=tphira,chorus",
    "--phases",
    "relay",
    "--relay-duration",
    "3m",
    "--round-secs=90s",
    "--sessions",
    "20",
    "--client-procs",
    "2",
    "--json",
    "/tmp/out.json",
  ])!;
  deepEqual(o.servers, ["tphira", "chorus"]);
  deepEqual(o.phases, ["relay"]);
  equal(o.relayDuration, 180);
  equal(o.roundSecs, 90);
  equal(o.sessions, 20);
  equal(o.clientProcs, 2);
  equal(o.json, "/tmp/out.json");
});

Deno.test("parseCompareArgs adds chorus-pg by default when a database URL is given", () => {
  const o = parseCompareArgs([...T, "--database-url", "postgres://postgres@127.0.0.1:5432/test"])!;
  deepEqual(o.servers, ["chorus", "chorus-pg", "tphira"]);
  const only = parseCompareArgs(["--servers", "chorus", "--database-url", "postgres://u@h/db"])!;
  deepEqual(only.servers, ["chorus"]);
});

Deno.test("parseCompareArgs refuses bad input with a clear message", () => {
  const bad = (args: string[], re: RegExp) =>
    throws(() => parseCompareArgs(args), (e) => e instanceof UsageError && re.test(e.message));
  bad([], /--tphira-dir is missing/);
  bad(["--servers", "chorus-pg"], /--database-url is missing/);
  bad(["--servers", "chorus,nginx"], /Cannot parse --servers: "chorus,nginx"/);
  bad(["--servers", "chorus,chorus"], /repeats an item/);
  bad(["--servers", "chorus", "--phases", ""], /Cannot parse --phases/);
  bad(["--servers", "chorus", "--sessions", "ten"], /"ten" is not an integer/);
  bad(["--servers", "chorus", "--sessions", "0"], /outside 1\.\.28000/);
  bad(["--servers", "chorus", "--hold", "5x"], /is not a duration/);
  bad(["--servers", "chorus", "--rooms"], /a value is missing/);
  bad(["--servers", "chorus", "--frobnicate", "1"], /Unknown option: --frobnicate/);
  bad(["--servers", "chorus", "--database-url", "mysql://x"], /not a postgres:\/\/ URL/);
  bad(["--servers", "chorus", "--big-rooms", "3001"], /outside 1\.\.3000/);
  bad(["--servers", "chorus", "--rooms", "2", "--client-procs", "3"], /Cannot split 2 rooms over 3/);
  bad(["--servers", "chorus", "--big-rooms", "1"], /Cannot split 1 rooms over 2/);
});

Deno.test("compareUsage lists every option with its default", () => {
  const u = compareUsage();
  for (const flag of ["--tphira-dir", "--servers", "--relay-duration", "--client-procs", "--database-url"]) {
    ok(u.includes(flag), flag);
  }
  match(u, /--relay-duration\s+relay window \[600\]/);
  match(u, /--servers\s+.*\[chorus,tphira\]/);
});
