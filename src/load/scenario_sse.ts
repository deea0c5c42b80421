/**
 * `sse` scenario: N subscribers on the server's event stream (`/api/events`
 * by default), while one game client creates and leaves a room at a fixed
 * rate. Each `create_room` event is matched to the moment its `CreateRoom`
 * was sent, so the delivery latency covers the command, the event bus and the
 * fan-out to every subscriber.
 *
 * @module
 */

import type { PhiraClient } from "../client/mod.ts";
import { devToken } from "../upstream/mod.ts";
import type { SseOptions } from "./args.ts";
import { CommandTimes, delay, ErrorTally, openLoadClient } from "./clients.ts";
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
import { readSse } from "./sse_client.ts";
import { Histogram, perSecond } from "./stats.ts";

type Opts = Pick<SseOptions, "subscribers" | "eventsPerSec" | "duration" | "path" | "idBase">;

/** Time given to the last events to arrive before the subscribers close, ms. */
const TRAIL_MS = 2000;

/** Starts the `sse` scenario against `target.httpPort`. */
export function runSse(o: Opts, target: RunTarget & { httpPort: number }, deps: RunDeps): ScenarioRun {
  const { clock, signal } = deps;
  const errors = new ErrorTally();
  const times = new CommandTimes(clock, errors);
  const latency = new Histogram();
  const sentAt = new Map<string, number>();
  const url = `http://${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.httpPort}${o.path}`;
  const stop = new AbortController();
  const tag = Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, "0");
  let phase = "subscribe";
  let ready = 0;
  let delivered = 0;
  let lagged = 0;
  let created = 0;
  let windowStart = 0;

  const subscribe = async () => {
    let gotReady = false;
    try {
      await readSse(url, stop.signal, (m) => {
        if (!gotReady) {
          gotReady = true;
          ready++;
        }
        if (m.event === "stream_lagged") lagged++;
        if (m.event !== "create_room") return;
        const room = (JSON.parse(m.data) as { room?: string }).room;
        const at = room === undefined ? undefined : sentAt.get(room);
        if (at === undefined) return;
        delivered++;
        latency.record(clock.monotonic() - at);
      });
      if (!stop.signal.aborted) errors.add("sse-ended", "the server ended a stream");
    } catch (error) {
      errors.add("sse", error instanceof Error ? error.message : String(error));
    }
  };

  const run = async () => {
    const streams: Promise<void>[] = [];
    for (let i = 0; i < o.subscribers && !signal.aborted; i++) {
      streams.push(subscribe());
      // Open at most 100 per 10 ms, like a burst of page loads.
      if (i % 100 === 99) await delay(clock, 10, signal);
    }
    const until = clock.monotonic() + 30_000;
    while (ready < streams.length && clock.monotonic() < until && !signal.aborted) await delay(clock, 20, signal);
    const clients: PhiraClient[] = [];
    let serverFrom: ProcSample | null = null;
    let serverTo: ProcSample | null = null;
    try {
      // Servers limit room operations per session (ours: 20 per 6 s): each maker does at most 2 per second.
      for (let i = 0; i < Math.ceil(o.eventsPerSec); i++) {
        const c = await openLoadClient(target, { clock, errors, pingIntervalMs: 3000 });
        clients.push(c);
        await times.time("Authenticate", () => c.authenticate(devToken(o.idBase + i)));
      }
      phase = "events";
      windowStart = clock.monotonic();
      serverFrom = deps.server?.sample() ?? null;
      const period = 1000 / o.eventsPerSec;
      while (!signal.aborted && clock.monotonic() - windowStart < o.duration * 1000) {
        const c = clients[created % clients.length]!;
        const id = `sse-${tag}-${created}`;
        sentAt.set(id, clock.monotonic());
        created++;
        // Create and leave without waiting for the next event's turn; failures are counted, the run goes on.
        void times.time("CreateRoom", () => c.createRoom(id)).then(() => times.time("LeaveRoom", () => c.leaveRoom()))
          .catch(() => {});
        await delay(clock, windowStart + created * period - clock.monotonic(), signal);
      }
      serverTo = deps.server?.sample() ?? null;
      phase = "trail";
      await delay(clock, TRAIL_MS);
    } catch {
      // Counted by `times`; the report says how far it got.
    } finally {
      phase = "teardown";
      stop.abort();
      let timer;
      const limit = new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, 10_000)));
      await Promise.race([Promise.all(streams), limit]);
      clock.clearTimeout(timer);
      await Promise.all(clients.map((c) => c.close()));
    }
    const windowMs = (serverTo?.at ?? clock.monotonic()) - windowStart;
    const expected = created * ready;
    const s = latency.summary();
    const results = {
      url,
      subscribers: { target: o.subscribers, ready },
      events: { created, perSec: perSecond(created, windowMs) },
      deliveries: {
        expected,
        delivered,
        missing: expected - delivered,
        perSec: perSecond(delivered, windowMs),
        lagged,
      },
      deliveryLatency: s,
      commands: times.summaries(),
      serverCpuPercent: serverFrom && serverTo ? cpuPercent(serverFrom, serverTo) : null,
    };
    if (expected > delivered) errors.add("sse-missing", `${expected - delivered} of ${expected} deliveries missing`);
    const rows: Row[] = [
      ["subscribers ready / target", `${fmtNum(ready)} / ${fmtNum(o.subscribers)}`],
      ["rooms created (events)", `${fmtNum(created)} (${results.events.perSec}/s)`],
      ["deliveries / expected", `${fmtNum(delivered)} / ${fmtNum(expected)} (${fmtNum(results.deliveries.perSec)}/s)`],
      ["stream_lagged notices", fmtNum(lagged)],
      ["delivery latency p50 / p99 / max", fmtLatency(s)],
      ["CreateRoom RTT p50 / p99 / max", fmtLatency(times.of("CreateRoom").summary())],
    ];
    if (results.serverCpuPercent !== null) rows.push(["server CPU", `${results.serverCpuPercent} % of one core`]);
    return { results, rows, errors };
  };

  const status = (): RunStatus => {
    const detail = `${ready} subscribed, ${created} events, ${delivered} delivered, p99 ${
      latency.quantile(0.99)?.toFixed(1) ?? "\u2014"
    } ms`;
    if (phase === "subscribe") return { phase, done: ready, total: o.subscribers, detail };
    const total = o.duration * 1000;
    return {
      phase,
      done: phase === "events" ? Math.min(total, clock.monotonic() - windowStart) : total,
      total,
      detail,
    };
  };

  return { status, result: run() };
}
