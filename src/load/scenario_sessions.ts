/**
 * `sessions` scenario: ramp to N authenticated sessions that ping every
 * 3 s like the official client (protocol.md §5.2), hold them, and report the
 * ping round trip during the hold and the server's resident memory per session.
 *
 * @module
 */

import type { PhiraClient } from "../client/mod.ts";
import { devToken } from "../upstream/mod.ts";
import type { SessionsOptions } from "./args.ts";
import { closeAll, CommandTimes, delay, ErrorTally, openLoadClient } from "./clients.ts";
import { PingDriver } from "./pinger.ts";
import { cpuPercent, mb, type ProcSample } from "./proc.ts";
import {
  fmtLatency,
  fmtNum,
  type Row,
  type RunDeps,
  type RunStatus,
  type RunTarget,
  type ScenarioRun,
} from "./scenario.ts";
import { Histogram } from "./stats.ts";

type Opts = Pick<SessionsOptions, "sessions" | "rampPerSec" | "duration" | "pingInterval" | "idBase" | "maxInflight">;

/** Starts the `sessions` scenario. */
export function runSessions(o: Opts, target: RunTarget, deps: RunDeps): ScenarioRun {
  const { clock, signal } = deps;
  const errors = new ErrorTally();
  const times = new CommandTimes(clock, errors);
  const rampPings = new Histogram();
  const holdPings = new Histogram();
  const clients: PhiraClient[] = [];
  let phase = "ramp";
  let established = 0;
  let failed = 0;
  let holdStart = 0;
  const pinger = new PingDriver(clock, {
    intervalMs: o.pingInterval * 1000,
    timeoutMs: 2000,
    onRtt: (ms) => (phase === "hold" ? holdPings : rampPings).record(ms),
  });

  const openOne = async (k: number): Promise<void> => {
    let client: PhiraClient | null = null;
    try {
      client = await times.time("connect", () => openLoadClient(target, { clock, errors, pingIntervalMs: 0 }));
      const c = client;
      await times.time("Authenticate", () => c.authenticate(devToken(o.idBase + k)));
      clients.push(c);
      pinger.add(c);
      established++;
    } catch {
      failed++;
      await client?.close();
    }
  };

  const run = async () => {
    const baseline = deps.server?.sample() ?? null;
    pinger.start();
    const t0 = clock.monotonic();
    let started = 0;
    let inflight = 0;
    let wake: (() => void) | null = null;
    const pending = new Set<Promise<void>>();
    while (started < o.sessions && !signal.aborted) {
      const due = Math.min(o.sessions, Math.floor((clock.monotonic() - t0) * o.rampPerSec / 1000) + 1);
      while (started < due && inflight < o.maxInflight) {
        inflight++;
        const p = openOne(started++).finally(() => {
          inflight--;
          pending.delete(p);
          wake?.();
        });
        pending.add(p);
      }
      if (inflight >= o.maxInflight) await new Promise<void>((resolve) => (wake = resolve));
      else await delay(clock, 10, signal);
      wake = null;
    }
    await Promise.all(pending);
    const rampMs = clock.monotonic() - t0;
    phase = "hold";
    holdStart = clock.monotonic();
    const holdFrom = deps.server?.sample() ?? null;
    const selfFrom = deps.self?.sample() ?? null;
    deps.server?.resetPeak();
    await delay(clock, o.duration * 1000, signal);
    const holdTo = deps.server?.sample() ?? null;
    const selfTo = deps.self?.sample() ?? null;
    const holdMs = clock.monotonic() - holdStart;
    phase = "teardown";
    const dropped = clients.filter((c) => c.closeReason !== null).length;
    pinger.stop();
    const pingTimeouts = pinger.timeouts;
    if (pingTimeouts) errors.add("ping-timeout", `${pingTimeouts} pings got no Pong within 2 s`);
    await closeAll(clients, errors);
    return report({ baseline, holdFrom, holdTo, selfFrom, selfTo, rampMs, holdMs, dropped, pingTimeouts });
  };

  interface Marks {
    baseline: ProcSample | null;
    holdFrom: ProcSample | null;
    holdTo: ProcSample | null;
    selfFrom: ProcSample | null;
    selfTo: ProcSample | null;
    rampMs: number;
    holdMs: number;
    dropped: number;
    pingTimeouts: number;
  }

  const report = (m: Marks) => {
    const ping = holdPings.summary();
    const server = m.baseline && m.holdTo
      ? {
        rssBaselineMb: mb(m.baseline.rssBytes),
        rssHoldEndMb: mb(m.holdTo.rssBytes),
        rssPeakMb: mb(deps.server!.peakRss),
        perSessionKb: established
          ? Math.round((m.holdTo.rssBytes - m.baseline.rssBytes) / established / 102.4) / 10
          : null,
        cpuPercentHold: m.holdFrom ? cpuPercent(m.holdFrom, m.holdTo) : null,
      }
      : null;
    const generator = m.selfFrom && m.selfTo
      ? { cpuPercentHold: cpuPercent(m.selfFrom, m.selfTo), rssMb: mb(m.selfTo.rssBytes) }
      : null;
    const results = {
      sessions: { target: o.sessions, established, failed, droppedDuringHold: m.dropped },
      rampMs: Math.round(m.rampMs),
      holdMs: Math.round(m.holdMs),
      pingHold: ping,
      pingRamp: rampPings.summary(),
      pingTimeouts: m.pingTimeouts,
      commands: times.summaries(),
      server,
      generator,
    };
    const rows: Row[] = [
      ["sessions established / target", `${fmtNum(established)} / ${fmtNum(o.sessions)} (${failed} failed)`],
      ["ramp time", `${(m.rampMs / 1000).toFixed(1)} s`],
      ["hold time", `${(m.holdMs / 1000).toFixed(1)} s`],
      ["pings during hold", fmtNum(ping.count)],
      ["ping RTT p50 / p99 / max", fmtLatency(ping)],
      ["login RTT p50 / p99 / max", fmtLatency(times.of("Authenticate").summary())],
      ["ping timeouts / dropped sessions", `${m.pingTimeouts} / ${m.dropped}`],
    ];
    if (server) {
      rows.push(
        ["server RSS baseline \u2192 hold end", `${server.rssBaselineMb} \u2192 ${server.rssHoldEndMb} MB`],
        ["server RSS per session", server.perSessionKb === null ? "\u2014" : `${server.perSessionKb} KB`],
        ["server CPU during hold", `${server.cpuPercentHold ?? "\u2014"} % of one core`],
      );
    }
    if (generator) rows.push(["generator CPU during hold", `${generator.cpuPercentHold} % of one core`]);
    return { results, rows, errors };
  };

  const status = (): RunStatus => {
    if (phase === "ramp") {
      return { phase, done: established + failed, total: o.sessions, detail: `${established} up, ${failed} failed` };
    }
    const held = phase === "hold" ? clock.monotonic() - holdStart : o.duration * 1000;
    const s = holdPings.summary();
    return {
      phase,
      done: Math.min(held, o.duration * 1000),
      total: o.duration * 1000,
      detail: `${established} sessions, ping p99 ${s.p99 ?? "\u2014"} ms, ${errors.total} errors`,
    };
  };

  return { status, result: run() };
}
