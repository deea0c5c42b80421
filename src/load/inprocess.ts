/**
 * The in-process benchmark (spec 3 §4.2 `benchmark`): virtual sessions with
 * negative ids (from -100,000,000) and rooms named `bench-...` inside a running
 * server, speaking the real protocol over in-memory pipes, playing rounds with
 * telemetry at the official client's rates. `fixed` keeps N rooms; `ramp` adds
 * `rooms/8 + 1` rooms per step until process CPU or RSS reaches its cap, then
 * holds. Everything it made is removed afterwards; the report is stored when a
 * store is given.
 *
 * @module
 */

import process from "node:process";
import type { ServerOps } from "../ops/mod.ts";
import type { GameServer } from "../server/mod.ts";
import type { Session } from "../session/session.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { delay } from "./clients.ts";
import { type BenchEnv, BenchRoom } from "./inprocess_room.ts";
import {
  BENCHMARK_DEFAULTS,
  BenchmarkError,
  type BenchmarkOptions,
  type BenchmarkReport,
  type BenchmarkReportStore,
  type BenchmarkStatus,
  MAX_BENCH_ROOMS,
} from "./inprocess_report.ts";
import { AvgPeakSeries, FixedHistogram, Histogram } from "./stats.ts";
import { TelemetryDriver } from "./telemetry.ts";

/** First virtual user id; later ones count down. */
export const BENCH_ID_BASE = -100_000_000;

/** Dependencies of {@link runInProcessBenchmark}. */
export interface BenchmarkDeps {
  /** The server's operations: bench rooms are changed and closed through them. */
  readonly ops: ServerOps;
  readonly clock: Clock;
  readonly log: Logger;
  /** Stores the report (the persistence layer), when present. */
  readonly reportStore?: BenchmarkReportStore;
  /** Aborted to stop early, e.g. when the process stops (the run cleans up; the report is still made and stored). */
  readonly signal?: AbortSignal;
  /** Called once per step with live figures. */
  readonly onStatus?: (status: BenchmarkStatus) => void;
  /** CPU time used and resident memory of this process (default: `process.cpuUsage`, `Deno.memoryUsage`). */
  readonly sampleProcess?: () => { cpuMs: number; rssBytes: number };
}

function defaultSample(): { cpuMs: number; rssBytes: number } {
  const u = process.cpuUsage();
  return { cpuMs: (u.user + u.system) / 1000, rssBytes: Deno.memoryUsage().rss };
}

/** Time rooms get to finish their round when the run ends, ms. */
const WINDDOWN_MS = 15_000;
/** The same when the run was aborted (shutdown): rooms are closed under the players soon after. */
const ABORT_WINDDOWN_MS = 2_000;

/** Runs the benchmark against `server` and resolves with its report (after cleanup). */
export async function runInProcessBenchmark(
  server: GameServer,
  options: Partial<BenchmarkOptions>,
  deps: BenchmarkDeps,
): Promise<BenchmarkReport> {
  const o: BenchmarkOptions = { ...BENCHMARK_DEFAULTS, ...options };
  const { clock, log } = deps;
  if (deps.signal?.aborted || server.core.shuttingDown) {
    throw new BenchmarkError("STOPPING", "Cannot run the benchmark: the server is stopping");
  }
  // Virtual ids are the same in every run: two runs at once would take over each other's users.
  for (const id of server.core.users.keys()) {
    if (id <= BENCH_ID_BASE) {
      throw new BenchmarkError("BUSY", "Cannot run the benchmark: a benchmark is already running");
    }
  }
  const sample = deps.sampleProcess ?? defaultSample;
  const tag = Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, "0");
  const startedAt = new Date(clock.now());
  const t0 = clock.monotonic();
  const ops = new Map<string, { count: number; failed: number }>();
  const latency = new Histogram();
  const buckets = new FixedHistogram();
  const failures: string[] = [];
  const winddown = new AbortController();
  const onAbort = () => winddown.abort();
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  const sessions = new Set<Session>();
  const driver = new TelemetryDriver(clock, { fingers: o.fingers, notesPerSec: o.notesPerSec }, t0);
  const env: BenchEnv = {
    server,
    ops: deps.ops,
    clock,
    driver,
    roundMs: o.roundSecs * 1000,
    chart: 1,
    stop: winddown.signal,
    sessions,
    record(kind, ms, failure) {
      const op = ops.get(kind) ?? { count: 0, failed: 0 };
      ops.set(kind, op);
      op.count++;
      if (ms === null) {
        op.failed++;
        if (failures.length < 20) failures.push(`${kind}: ${failure ?? "failed"}`);
      } else {
        latency.record(ms);
        buckets.record(ms);
      }
    },
  };
  const rooms: BenchRoom[] = [];
  const loops: Promise<void>[] = [];
  let nextUser = 0;
  const addRooms = (n: number) => {
    for (let i = 0; i < n && rooms.length < Math.min(o.rooms, MAX_BENCH_ROOMS); i++) {
      const ids = Array.from({ length: o.playersPerRoom }, () => BENCH_ID_BASE - nextUser++);
      const room = new BenchRoom(env, `bench-${tag}-${rooms.length}`, ids);
      rooms.push(room);
      loops.push(
        room.setup().then(() => room.play()).catch((e) => {
          room.stopTelemetry();
          env.record("room", null, `${room.id}: ${e instanceof Error ? e.message : String(e)}`);
        }),
      );
    }
  };

  log.info("benchmark started", { mode: o.mode, rooms: o.rooms, duration_s: o.durationSecs, tag });
  const series = {
    sessions: new AvgPeakSeries(),
    rooms: new AvgPeakSeries(),
    playing: new AvgPeakSeries(),
    cpu: new AvgPeakSeries(),
  };
  const rss = new AvgPeakSeries();
  const rate = new AvgPeakSeries();
  let reached: BenchmarkReport["reached"] = null;
  driver.start();
  addRooms(o.mode === "fixed" ? o.rooms : 1);
  let last = sample();
  let lastAt = clock.monotonic();
  let lastCommands = 0;
  const commands = () => {
    let n = driver.sent.touchMessages + driver.sent.judgeMessages;
    for (const op of ops.values()) n += op.count;
    return n;
  };
  while (!winddown.signal.aborted && clock.monotonic() - t0 < o.durationSecs * 1000) {
    await delay(clock, o.stepMs, winddown.signal);
    const now = clock.monotonic();
    const s = sample();
    const span = now - lastAt;
    const cpu = span > 0 ? (s.cpuMs - last.cpuMs) / span * 100 : 0;
    const cmdRate = span > 0 ? (commands() - lastCommands) * 1000 / span : 0;
    [last, lastAt, lastCommands] = [s, now, commands()];
    const playing = rooms.filter((r) => server.core.rooms.get(r.id)?.phase.kind === "play").length;
    const status: BenchmarkStatus = {
      elapsedMs: Math.round(now - t0),
      sessions: sessions.size,
      rooms: rooms.length,
      playingRooms: playing,
      cpuPercent: Math.round(cpu * 10) / 10,
      rssMb: Math.round(s.rssBytes / 1048576 * 10) / 10,
      commandsPerSec: Math.round(cmdRate),
    };
    series.sessions.add(status.sessions);
    series.rooms.add(status.rooms);
    series.playing.add(playing);
    series.cpu.add(status.cpuPercent);
    rss.add(status.rssMb);
    rate.add(status.commandsPerSec);
    deps.onStatus?.(status);
    if (o.mode === "ramp" && !reached) {
      const reason = cpu >= o.cpuPercent
        ? "cpu"
        : status.rssMb >= o.rssMb
        ? "ram"
        : rooms.length >= o.rooms
        ? "max-rooms"
        : null;
      if (reason) {
        reached = { atSecs: Math.round((now - t0) / 100) / 10, rooms: rooms.length, sessions: sessions.size, reason };
      } else addRooms(Math.floor(rooms.length / 8) + 1);
    }
  }
  const interrupted = deps.signal?.aborted ?? false;
  deps.signal?.removeEventListener("abort", onAbort);
  const durationSecs = Math.round((clock.monotonic() - t0) / 100) / 10;
  winddown.abort();
  const cleanup = await cleanUp(
    server,
    rooms,
    loops,
    sessions,
    clock,
    tag,
    interrupted ? ABORT_WINDDOWN_MS : WINDDOWN_MS,
  );
  driver.stop();
  const title = `benchmark ${o.mode} ${
    o.mode === "fixed" ? `${o.rooms} rooms` : `cpu ${o.cpuPercent}% ram ${o.rssMb} MB`
  } ${o.durationSecs} s`;
  const report: BenchmarkReport = {
    id: crypto.randomUUID(),
    title,
    mode: o.mode,
    startedAt: startedAt.toISOString(),
    durationSecs,
    interrupted,
    options: o,
    operations: [...ops.values()].reduce((n, op) => n + op.count, 0),
    failedOperations: [...ops.values()].reduce((n, op) => n + op.failed, 0),
    operationsByKind: Object.fromEntries(ops),
    latency: { summary: latency.summary(), buckets: buckets.buckets() },
    sessions: series.sessions.get(),
    rooms: series.rooms.get(),
    playingRooms: series.playing.get(),
    cpuPercent: series.cpu.get(),
    rssMb: rss.get(),
    commandsPerSec: rate.get(),
    telemetry: { ...driver.sent },
    rounds: rooms.reduce((n, r) => n + r.rounds, 0),
    reached,
    failureSamples: failures,
    cleanup,
    notes: [
      "in-process: virtual sessions over in-memory pipes, no network stack; figures are not comparable with `chorus load`",
      "rooms are live without monitors: telemetry takes the relay path but reaches nobody",
    ],
  };
  if (deps.reportStore) {
    try {
      await deps.reportStore.saveBenchmarkReport({ id: report.id, title, report });
    } catch (error) {
      log.error("benchmark report could not be stored", { error: String(error) });
    }
  }
  log.info("benchmark finished", { id: report.id, operations: report.operations, failed: report.failedOperations });
  return report;
}

/** Ends rounds, closes bench rooms and virtual sessions, and counts what is left. */
async function cleanUp(
  server: GameServer,
  rooms: BenchRoom[],
  loops: Promise<void>[],
  sessions: Set<Session>,
  clock: Clock,
  tag: string,
  winddownMs: number,
): Promise<BenchmarkReport["cleanup"]> {
  let timer;
  const limit = new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, winddownMs)));
  await Promise.race([Promise.all(loops), limit]);
  clock.clearTimeout(timer);
  for (const r of rooms) await r.disband();
  await Promise.all(rooms.map((r) => r.close()));
  // Pipes close at once, but sessions finish on their own turn of the event loop.
  for (let i = 0; i < 100 && sessions.size; i++) await delay(clock, 10);
  for (const s of sessions) s.close("shutdown");
  const core = server.core;
  const prefix = `bench-${tag}-`;
  let users = 0;
  for (const id of core.users.keys()) if (id <= BENCH_ID_BASE) users++;
  return { rooms: [...core.rooms.keys()].filter((id) => id.startsWith(prefix)).length, users, sessions: sessions.size };
}
