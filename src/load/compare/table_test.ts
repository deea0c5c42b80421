import { equal, match, ok } from "node:assert/strict";
import { defaultOptions } from "./args.ts";
import type { IdleFigures, RelayFigures } from "./figures.ts";
import { markdownTable, num, renderComparison, type ServerResult } from "./table.ts";

const idle: IdleFigures = {
  rssAfterStartMiB: 56.4,
  sessions: 10000,
  established: 10000,
  rssAtSessionsMiB: 251.2,
  kibPerSession: 20,
  ping: { p50: 2, p99: 15.7, max: 40 },
  pingTimeouts: 0,
  serverCpuPercent: 12.3,
  generatorCpuPercent: 30,
  errors: 0,
  errorKinds: {},
  errorSamples: [],
};

const relay: RelayFigures = {
  rooms: 300,
  ready: 300,
  failedSetup: 0,
  unfinishedSetup: 0,
  failedRound: 0,
  steadySecs: 600,
  relayedPerSec: 6143,
  relay: { p50: 3.1, p99: 17.9, max: 80 },
  pingP99: 4,
  serverCpuPercent: 30.4,
  serverMainThreadPercent: 28,
  machinePercent: 120,
  peakMainThreadPercent: 60,
  peakMachinePercent: 150,
  otherPercent: 20,
  generatorCpuPercent: 45,
  generatorLagP99: 5,
  rssSteadyStartMiB: 70,
  rssAfterFirstRoundMiB: 75.5,
  rssEndMiB: 76,
  rssPeakMiB: 77,
  rssSlopeMiBPerMin: 0.05,
  errors: 0,
  errorKinds: {},
  errorSamples: [],
  saturated: "none",
};

Deno.test("markdownTable pads every column to its widest cell, as deno fmt writes tables", async () => {
  const t = markdownTable(["Server", "RSS"], [["tphira-mp", "56.4"], ["Chorus", "—"]]);
  equal(
    t,
    [
      "| Server    | RSS  |",
      "| --------- | ---- |",
      "| tphira-mp | 56.4 |",
      "| Chorus    | —    |",
    ].join("\n"),
  );
  const fmt = new Deno.Command(Deno.execPath(), { args: ["fmt", "--ext", "md", "-"], stdin: "piped", stdout: "piped" })
    .spawn();
  const w = fmt.stdin.getWriter();
  await w.write(new TextEncoder().encode(t + "\n"));
  await w.close();
  const out = await fmt.output();
  equal(new TextDecoder().decode(out.stdout), t + "\n");
});

Deno.test("renderComparison prints the idle, relay and big tables and the failed phases", () => {
  const results: ServerResult[] = [
    {
      kind: "tphira",
      label: "tphira-mp",
      idle,
      relay,
      big: {
        ...relay,
        rooms: 1000,
        ready: 990,
        failedRound: 7,
        saturated: "machine CPU",
        errors: 9,
        errorKinds: { "room-round": 7, "Ready/timeout": 2 },
      },
      failures: [],
    },
    {
      kind: "chorus",
      label: "Chorus, embedded default store",
      idle: { ...idle, established: 9000, kibPerSession: null },
      failures: ["relay: boom"],
    },
  ];
  const text = renderComparison(results, { ...defaultOptions(), relayDuration: 180 });
  match(text, /\| tphira-mp +\| 56\.4 +\| 251\.2 +\| 20 +\| 15\.7 ms +\| 12 % +\| 0 +\|/);
  match(text, /\| Chorus, embedded default store \| 56\.4 +\| 251\.2 \(9,000 up\) +\| — +\|/);
  match(text, /300 rooms × \(8 players \+ 1 monitor\) at client rates, 180 s after setup/);
  match(
    text,
    /\| tphira-mp \| 300 +\| 6,143 +\| 3\.1 ms \/ 17\.9 ms +\| 30 % \(28 %\) +\| 70 → 75\.5 → 76 \(77\) +\| \+0\.05 +\| 45 % \(5 ms\) +\| 0 +\|/,
  );
  match(
    text,
    /\| tphira-mp \| 990 \(7 failed a round\) \|.*\| 120 % \(other 20 %\) \|.*\| 45 % \(5 ms\) +\|.*\| machine CPU +\|/,
  );
  match(
    renderComparison([{ ...results[0]!, relay: { ...relay, generatorLagP99: null } }], defaultOptions()),
    /\| 45 % \(—\) +\|/,
  );
  ok(!/\| Chorus.*\| 300 /.test(text), "no relay row for a server whose relay phase failed");
  match(text, /Errors by kind:\n- tphira-mp, big: room-round ×7, Ready\/timeout ×2\n/);
  match(text, /Failed phases:\n- Chorus, embedded default store: relay: boom/);
  equal(num(1234.56), "1,234.6");
  equal(num(null), "—");
});
