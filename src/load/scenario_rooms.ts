/**
 * `rooms` scenario: R rooms × P players + one monitor each play full rounds
 * while the players stream telemetry at the official client's rates. Rooms
 * are set up at `--ramp-per-sec` and start playing at once; the steady window
 * (rates, relay latency, server CPU) starts when the last room is set up and
 * lasts `--duration`. Then rounds end early, everyone reports, and all close.
 *
 * @module
 */

import type { RoomsOptions } from "./args.ts";
import { ConcurrencyLimit } from "../util/concurrency_limit.ts";
import { CommandTimes, delay, ErrorTally } from "./clients.ts";
import { PingDriver } from "./pinger.ts";
import { cpuPercent, mb, type ProcSample } from "./proc.ts";
import { RoomRunner } from "./room_runner.ts";
import {
  fmtLatency,
  fmtNum,
  type Row,
  type RunDeps,
  type RunStatus,
  type RunTarget,
  type ScenarioRun,
} from "./scenario.ts";
import { Histogram, perSecond } from "./stats.ts";
import { diffCounts, mapCounts, RelayMeter, type TelemetryCounts, TelemetryDriver } from "./telemetry.ts";

type Opts = Pick<
  RoomsOptions,
  | "rooms"
  | "players"
  | "monitor"
  | "roundSecs"
  | "duration"
  | "fingers"
  | "notesPerSec"
  | "chart"
  | "idBase"
  | "monitorBase"
  | "rampPerSec"
  | "pingInterval"
  | "maxInflight"
  | "setupLimit"
>;

/** Monitor ids the server must allow to spectate (config `monitors`). */
export function monitorIds(o: Pick<RoomsOptions, "rooms" | "monitorBase" | "monitor">): number[] {
  return o.monitor ? Array.from({ length: o.rooms }, (_, r) => o.monitorBase + r) : [];
}

/** How long rooms get to finish their round and close at the end, ms. */
const TEARDOWN_MS = 30_000;

/** Starts the `rooms` scenario. */
export function runRooms(o: Opts, target: RunTarget, deps: RunDeps): ScenarioRun {
  const { clock, signal } = deps;
  const errors = new ErrorTally();
  const times = new CommandTimes(clock, errors);
  const epoch = clock.monotonic();
  const driver = new TelemetryDriver(clock, { fingers: o.fingers, notesPerSec: o.notesPerSec }, epoch);
  const relay = new RelayMeter(clock, epoch);
  const winddown = new AbortController();
  // Ends setup: at the setup limit or at the run's stop, whichever comes first.
  const setupEnd = new AbortController();
  const onAbort = () => (winddown.abort(), setupEnd.abort());
  signal.addEventListener("abort", onAbort, { once: true });
  const pings = new Histogram();
  const pinger = new PingDriver(clock, {
    intervalMs: o.pingInterval * 1000,
    timeoutMs: 2000,
    onRtt: (ms) => {
      if (phase === "steady") pings.record(ms);
    },
  });
  const tag = Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, "0");
  const env = {
    endpoint: target,
    clock,
    errors,
    times,
    driver,
    relay,
    pinger,
    logins: new ConcurrencyLimit(o.maxInflight),
    chart: o.chart,
    roundMs: o.roundSecs * 1000,
    stop: winddown.signal,
  };
  const runners: RoomRunner[] = [];
  const loops: Promise<void>[] = [];
  let phase = "setup";
  let ready = 0;
  let setupFailed = 0;
  let setupUnfinished = 0;
  let roundFailed = 0;
  let steadyStart = 0;

  const startRoom = (r: number): Promise<void> => {
    const players = Array.from({ length: o.players }, (_, j) => o.idBase + r * o.players + j);
    const runner = new RoomRunner(env, `load-${tag}-${r}`, players, o.monitor ? o.monitorBase + r : null);
    runners.push(runner);
    return runner.setup(setupEnd.signal).then(() => {
      ready++;
      loops.push(runner.play().catch((e) => fail(runner, "round", e)));
    }, (e) => fail(runner, "setup", e));
  };

  const fail = (runner: RoomRunner, what: string, error: unknown) => {
    const unfinished = what === "setup" && setupEnd.signal.aborted;
    if (!runner.failed) {
      if (what !== "setup") roundFailed++;
      else if (unfinished) setupUnfinished++;
      else setupFailed++;
    }
    runner.failed = true;
    runner.stopTelemetry();
    const key = unfinished ? "room-setup-unfinished" : `room-${what}`;
    errors.add(key, `${runner.roomId}: ${error instanceof Error ? error.message : String(error)}`);
  };

  const run = async () => {
    driver.start();
    pinger.start();
    const t0 = clock.monotonic();
    const limitTimer = o.setupLimit > 0 ? clock.setTimeout(() => setupEnd.abort(), o.setupLimit * 1000) : undefined;
    const setups: Promise<void>[] = [];
    let started = 0;
    while (started < o.rooms && !setupEnd.signal.aborted) {
      const due = Math.min(o.rooms, Math.floor((clock.monotonic() - t0) * o.rampPerSec / 1000) + 1);
      while (started < due) setups.push(startRoom(started++));
      await delay(clock, 20, setupEnd.signal);
    }
    await Promise.all(setups);
    clock.clearTimeout(limitTimer);
    // Rooms never started count as unfinished too: the report says how many of the target were measured.
    setupUnfinished += o.rooms - started;
    const setupMs = clock.monotonic() - t0;
    phase = "steady";
    steadyStart = clock.monotonic();
    const sentFrom = { ...driver.sent };
    const recvFrom = { ...relay.received };
    relay.recording = true;
    const serverFrom = deps.server?.sample() ?? null;
    const selfFrom = deps.self?.sample() ?? null;
    deps.server?.resetPeak();
    await delay(clock, o.duration * 1000, winddown.signal);
    const serverTo = deps.server?.sample() ?? null;
    const selfTo = deps.self?.sample() ?? null;
    relay.recording = false;
    const steadyMs = clock.monotonic() - steadyStart;
    const sent = diffCounts(driver.sent, sentFrom);
    const received = diffCounts(relay.received, recvFrom);
    phase = "teardown";
    winddown.abort();
    signal.removeEventListener("abort", onAbort);
    let timer;
    const limit = new Promise<boolean>((resolve) => (timer = clock.setTimeout(() => resolve(false), TEARDOWN_MS)));
    const finished = await Promise.race([Promise.all(loops).then(() => true), limit]);
    clock.clearTimeout(timer);
    if (!finished) errors.add("teardown", `rounds still running after ${TEARDOWN_MS} ms; closing anyway`);
    // Whole-run counts once every round has ended: each member saw its round's end, which the server
    // relays after the telemetry sent before it, so these match exactly when nothing was lost (the
    // steady window's counts can differ by the batches in flight at its two edges).
    const sentTotal = { ...driver.sent };
    const relayedTotal = { ...relay.received };
    driver.stop();
    pinger.stop();
    if (pinger.timeouts) errors.add("ping-timeout", `${pinger.timeouts} pings got no Pong within 2 s`);
    for (const r of runners) {
      for (const m of r.members) if (m.client?.closeReason) errors.addError("connection", m.client.closeReason);
    }
    await Promise.all(runners.map((r) => r.close()));
    return report({
      setupMs,
      steadyMs,
      sent,
      received,
      sentTotal,
      relayedTotal,
      serverFrom,
      serverTo,
      selfFrom,
      selfTo,
    });
  };

  interface Marks {
    setupMs: number;
    steadyMs: number;
    sent: TelemetryCounts;
    received: TelemetryCounts;
    sentTotal: TelemetryCounts;
    relayedTotal: TelemetryCounts;
    serverFrom: ProcSample | null;
    serverTo: ProcSample | null;
    selfFrom: ProcSample | null;
    selfTo: ProcSample | null;
  }

  const report = (m: Marks) => {
    const rate = (n: number) => perSecond(n, m.steadyMs);
    const touch = relay.touchLatency.summary();
    const judge = relay.judgeLatency.summary();
    const all = new Histogram();
    all.merge(relay.touchLatency);
    all.merge(relay.judgeLatency);
    const relayAll = all.summary();
    const rounds = runners.reduce((n, r) => n + r.rounds, 0);
    const server = m.serverFrom && m.serverTo
      ? {
        cpuPercent: cpuPercent(m.serverFrom, m.serverTo),
        rssEndMb: mb(m.serverTo.rssBytes),
        rssPeakMb: mb(deps.server!.peakRss),
      }
      : null;
    const generator = m.selfFrom && m.selfTo
      ? { cpuPercent: cpuPercent(m.selfFrom, m.selfTo), rssMb: mb(m.selfTo.rssBytes) }
      : null;
    const results = {
      rooms: { target: o.rooms, ready, setupFailed, setupUnfinished, roundFailed },
      clients: ready * (o.players + (o.monitor ? 1 : 0)),
      setupMs: Math.round(m.setupMs),
      steadyMs: Math.round(m.steadyMs),
      roundsCompleted: rounds,
      sentPerSec: mapCounts(m.sent, rate),
      relayedPerSec: mapCounts(m.received, rate),
      sentSteady: m.sent,
      relayedSteady: m.received,
      sentTotal: m.sentTotal,
      relayedTotal: m.relayedTotal,
      relayLatency: { all: relayAll, touches: touch, judges: judge },
      pingSteady: pings.summary(),
      commands: times.summaries(),
      server,
      generator,
    };
    const rows: Row[] = [
      [
        "rooms ready / target",
        `${fmtNum(ready)} / ${fmtNum(o.rooms)} (${setupFailed} failed setup, ${setupUnfinished} unfinished at the ` +
        `setup limit, ${roundFailed} failed in a round)`,
      ],
      ["clients", fmtNum(results.clients)],
      ["setup time / steady window", `${(m.setupMs / 1000).toFixed(1)} s / ${(m.steadyMs / 1000).toFixed(1)} s`],
      ["rounds completed", fmtNum(rounds)],
      [
        "touch msgs/s sent \u2192 relayed",
        `${fmtNum(rate(m.sent.touchMessages), 1)} \u2192 ${fmtNum(rate(m.received.touchMessages), 1)}`,
      ],
      [
        "judge msgs/s sent \u2192 relayed",
        `${fmtNum(rate(m.sent.judgeMessages), 1)} \u2192 ${fmtNum(rate(m.received.judgeMessages), 1)}`,
      ],
      ["touch frames/s relayed", fmtNum(rate(m.received.touchFrames), 1)],
      ["judge events/s relayed", fmtNum(rate(m.received.judgeEvents), 1)],
      ["relay latency p50 / p99 / max", fmtLatency(relayAll)],
      ["ping RTT p50 / p99 / max", fmtLatency(pings.summary())],
    ];
    for (const name of ["SelectChart", "RequestStart", "Ready", "Played"]) {
      rows.push([`${name} RTT p50 / p99 / max`, fmtLatency(times.of(name).summary())]);
    }
    if (server) {
      rows.push(["server CPU (steady)", `${server.cpuPercent} % of one core`], [
        "server RSS (end)",
        `${server.rssEndMb} MB`,
      ]);
    }
    if (generator) rows.push(["generator CPU (steady)", `${generator.cpuPercent} % of one core`]);
    return { results, rows, errors };
  };

  const status = (): RunStatus => {
    const d = `${ready} rooms, ${relay.received.touchMessages + relay.received.judgeMessages} relayed, ` +
      `relay p99 ${relay.touchLatency.quantile(0.99)?.toFixed(1) ?? "\u2014"} ms, ${errors.total} errors`;
    if (phase === "setup") return { phase, done: ready + setupFailed + setupUnfinished, total: o.rooms, detail: d };
    const total = o.duration * 1000;
    return {
      phase,
      done: phase === "steady" ? Math.min(total, clock.monotonic() - steadyStart) : total,
      total,
      detail: d,
    };
  };

  return { status, result: run() };
}
