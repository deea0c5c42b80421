/**
 * `logins` scenario: how many connect + authenticate + close cycles per
 * second the server completes, with a cold authentication cache (every token
 * new, so each login asks the upstream `/me`) and a warm one (a set of at most
 * 4096 tokens, spec 3 §8, logged in once beforehand so each login is a cache
 * hit).
 *
 * @module
 */

import { devToken } from "../upstream/mod.ts";
import type { LoginsOptions } from "./args.ts";
import { CommandTimes, ErrorTally, openLoadClient } from "./clients.ts";
import { cpuPercent, type ProcSample } from "./proc.ts";
import {
  fmtLatency,
  fmtNum,
  type Row,
  type RunDeps,
  type RunStatus,
  type RunTarget,
  type ScenarioRun,
} from "./scenario.ts";
import { Histogram, type LatencySummary, perSecond } from "./stats.ts";

type Opts = Pick<LoginsOptions, "count" | "duration" | "concurrency" | "warmUsers" | "idBase" | "phases">;

/** Figures of one phase. */
export interface LoginPhase {
  readonly phase: "cold" | "warm";
  readonly logins: number;
  readonly failed: number;
  readonly elapsedMs: number;
  readonly perSec: number;
  /** Authenticate request -> reply. */
  readonly authRtt: LatencySummary;
  /** Connect + authenticate. */
  readonly connectAndAuth: LatencySummary;
  readonly serverCpuPercent: number | null;
}

/** Starts the `logins` scenario. */
export function runLogins(o: Opts, target: RunTarget, deps: RunDeps): ScenarioRun {
  const { clock, signal } = deps;
  const errors = new ErrorTally();
  const phases = o.phases.split(",") as ("cold" | "warm")[];
  const base = o.idBase ?? 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
  let phase = "cold";
  let done = 0;
  let total = o.count;
  let phaseStart = clock.monotonic();

  /** One connect + authenticate + close; returns the auth RTT or throws. */
  const loginOnce = async (id: number, times: CommandTimes, full: Histogram | null): Promise<void> => {
    const start = clock.monotonic();
    const client = await openLoadClient(target, { clock, errors, pingIntervalMs: 0 });
    try {
      await times.time("Authenticate", () => client.authenticate(devToken(id)));
      full?.record(clock.monotonic() - start);
    } finally {
      await client.close();
    }
  };

  /** Runs `count` logins (ids from `idOf`) with `concurrency` workers, bounded by `limitMs`. */
  const drive = async (count: number, idOf: (i: number) => number, times: CommandTimes, full: Histogram | null) => {
    let issued = 0;
    let ok = 0;
    let failed = 0;
    const start = clock.monotonic();
    const limit = start + o.duration * 1000;
    const worker = async () => {
      while (issued < count && !signal.aborted && clock.monotonic() < limit) {
        const id = idOf(issued++);
        try {
          await loginOnce(id, times, full);
          ok++;
        } catch {
          failed++;
        }
        done = ok + failed;
      }
    };
    await Promise.all(Array.from({ length: Math.min(o.concurrency, count) }, worker));
    return { ok, failed, elapsedMs: clock.monotonic() - start };
  };

  const runPhase = async (name: "cold" | "warm"): Promise<LoginPhase> => {
    const times = new CommandTimes(clock, errors);
    const full = new Histogram();
    const warmBase = base + o.count;
    if (name === "warm") {
      phase = "warm-prime";
      done = 0;
      total = o.warmUsers;
      phaseStart = clock.monotonic();
      await drive(o.warmUsers, (i) => warmBase + i, new CommandTimes(clock, errors), null);
    }
    phase = name;
    done = 0;
    total = o.count;
    phaseStart = clock.monotonic();
    const from: ProcSample | null = deps.server?.sample() ?? null;
    const idOf = name === "cold" ? (i: number) => base + i : (i: number) => warmBase + (i % o.warmUsers);
    const r = await drive(o.count, idOf, times, full);
    const to = deps.server?.sample() ?? null;
    return {
      phase: name,
      logins: r.ok,
      failed: r.failed,
      elapsedMs: Math.round(r.elapsedMs),
      perSec: perSecond(r.ok, r.elapsedMs),
      authRtt: times.of("Authenticate").summary(),
      connectAndAuth: full.summary(),
      serverCpuPercent: from && to ? cpuPercent(from, to) : null,
    };
  };

  const run = async () => {
    const results: LoginPhase[] = [];
    for (const p of phases) {
      if (signal.aborted) break;
      results.push(await runPhase(p));
    }
    const rows: Row[] = [];
    for (const r of results) {
      rows.push(
        [
          `${r.phase}: logins/s`,
          `${fmtNum(r.perSec, 1)} (${fmtNum(r.logins)} in ${(r.elapsedMs / 1000).toFixed(1)} s)`,
        ],
        [`${r.phase}: failed`, fmtNum(r.failed)],
        [`${r.phase}: auth RTT p50 / p99 / max`, fmtLatency(r.authRtt)],
        [`${r.phase}: connect+auth p50 / p99 / max`, fmtLatency(r.connectAndAuth)],
      );
      if (r.serverCpuPercent !== null) rows.push([`${r.phase}: server CPU`, `${r.serverCpuPercent} % of one core`]);
    }
    return { results: { idBase: base, concurrency: o.concurrency, phases: results }, rows, errors };
  };

  const status = (): RunStatus => {
    const elapsed = clock.monotonic() - phaseStart;
    return {
      phase,
      done,
      total,
      detail: `${fmtNum(perSecond(done, elapsed), 0)} logins/s, ${errors.total} errors`,
    };
  };

  return { status, result: run() };
}
