import { deepEqual, equal, throws } from "node:assert/strict";
import { cpuPercent, mb, parseProcStat, readProc } from "./proc.ts";

Deno.test("parseProcStat reads CPU time and RSS, with spaces in the command name", () => {
  // Fields after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime … rss (24th).
  const stat = "1234 (deno (my app)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 900 1000000 2560 " +
    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
  deepEqual(parseProcStat(stat), { cpuMs: 3000, rssBytes: 2560 * 4096 });
  throws(() => parseProcStat("garbage"), TypeError);
});

Deno.test("cpuPercent is CPU time over wall time", () => {
  equal(cpuPercent({ at: 0, cpuMs: 100, rssBytes: 0 }, { at: 2000, cpuMs: 600, rssBytes: 0 }), 25);
  equal(cpuPercent({ at: 5, cpuMs: 0, rssBytes: 0 }, { at: 5, cpuMs: 10, rssBytes: 0 }), 0);
  equal(mb(1572864), 1.5);
});

Deno.test("readProc reads this process and returns null for a missing one", () => {
  const self = readProc("self", 1);
  equal(self === null || self.rssBytes > 0, true);
  equal(readProc(2 ** 30, 1), null);
});
