/**
 * `http` scenario: N workers each send `GET <path>` (the room list
 * `/api/rooms` by default) back to back for a duration, like `wrk -c N`,
 * reading every body; optionally with R background rooms × P players in a
 * round without telemetry (the `rooms` scenario's machinery), so the room
 * list has something to show. Reports requests per second, latency, response
 * size, status counts and errors (issue 8).
 *
 * @module
 */

import type { HttpOptions } from "./args.ts";
import { delay, ErrorTally } from "./clients.ts";
import { cpuPercent, type ProcSample } from "./proc.ts";
import { runRooms } from "./scenario_rooms.ts";
import {
  fmtLatency,
  fmtNum,
  type Row,
  type RunDeps,
  type RunStatus,
  type RunTarget,
  type ScenarioResult,
  type ScenarioRun,
} from "./scenario.ts";
import { Histogram, perSecond } from "./stats.ts";

type Opts = Pick<HttpOptions, "connections" | "duration" | "path" | "timeout" | "rooms" | "players" | "idBase">;

/** Longest wait for the background rooms to be set up, ms. */
const ROOMS_SETUP_MS = 600_000;

/** Starts the `http` scenario against `target.httpPort`. */
export function runHttp(o: Opts, target: RunTarget & { httpPort: number }, deps: RunDeps): ScenarioRun {
  const { clock, signal } = deps;
  const errors = new ErrorTally();
  const latency = new Histogram();
  const statuses = new Map<number, number>();
  const url = `http://${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.httpPort}${o.path}`;
  const stopRooms = new AbortController();
  const onAbort = () => stopRooms.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  // Background rooms play one long round without telemetry: the list shows them playing, the server idles.
  const rooms = o.rooms > 0
    ? runRooms(
      {
        rooms: o.rooms,
        players: o.players,
        monitor: false,
        roundSecs: 86400,
        duration: 86400,
        fingers: 0,
        notesPerSec: 0,
        chart: 7,
        idBase: o.idBase,
        monitorBase: 1,
        rampPerSec: 50,
        pingInterval: 3,
        maxInflight: 64,
        setupLimit: 0,
      },
      target,
      { ...deps, signal: stopRooms.signal },
    )
    : null;
  let phase = rooms ? "rooms" : "requests";
  let responses = 0;
  let bytes = 0;
  let windowStart = 0;

  const request = async (client: Deno.HttpClient) => {
    const abort = new AbortController();
    let timedOut = false;
    const timer = clock.setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, o.timeout * 1000);
    const stop = () => abort.abort();
    signal.addEventListener("abort", stop, { once: true });
    const start = clock.monotonic();
    try {
      const res = await fetch(url, { client, signal: abort.signal });
      const body = await res.arrayBuffer();
      latency.record(clock.monotonic() - start);
      responses++;
      bytes += body.byteLength;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (!res.ok) errors.add("http-status", `${res.status} ${res.statusText} for GET ${o.path}`);
    } catch (error) {
      // A request cut by Ctrl-C is not an error of the server.
      if (timedOut) errors.add("timeout", `no complete response within ${o.timeout * 1000} ms`);
      else if (!signal.aborted) errors.add("fetch", error instanceof Error ? error.message : String(error));
    } finally {
      clock.clearTimeout(timer);
      signal.removeEventListener("abort", stop);
    }
  };

  const run = async (): Promise<ScenarioResult> => {
    let roomsResult: ScenarioResult | null = null;
    let roomsDone = false;
    void rooms?.result.finally(() => (roomsDone = true));
    const setupUntil = clock.monotonic() + ROOMS_SETUP_MS;
    while (rooms && !roomsDone && rooms.status().phase === "setup" && !signal.aborted) {
      if (clock.monotonic() >= setupUntil) {
        errors.add("rooms-setup", `background rooms not set up within ${ROOMS_SETUP_MS} ms`);
        break;
      }
      await delay(clock, 20, signal);
    }
    const client = Deno.createHttpClient({ poolMaxIdlePerHost: o.connections });
    let serverFrom: ProcSample | null = null;
    let serverTo: ProcSample | null = null;
    try {
      phase = "requests";
      serverFrom = deps.server?.sample() ?? null;
      windowStart = clock.monotonic();
      const end = windowStart + o.duration * 1000;
      const worker = async () => {
        while (!signal.aborted && clock.monotonic() < end) await request(client);
      };
      await Promise.all(Array.from({ length: o.connections }, worker));
      serverTo = deps.server?.sample() ?? null;
    } finally {
      phase = "teardown";
      client.close();
      stopRooms.abort();
      signal.removeEventListener("abort", onAbort);
      roomsResult = rooms ? await rooms.result : null;
    }
    const windowMs = clock.monotonic() - windowStart;
    if (roomsResult) errors.merge(roomsResult.errors, "rooms/");
    const s = latency.summary();
    const background = roomsResult ? (roomsResult.results as { rooms: { target: number; ready: number } }).rooms : null;
    const results = {
      url,
      connections: o.connections,
      windowMs: Math.round(windowMs),
      requests: responses,
      requestsPerSec: perSecond(responses, windowMs),
      latency: s,
      responseBytes: { total: bytes, avg: responses ? Math.round(bytes / responses) : null },
      statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
      backgroundRooms: background && { target: background.target, ready: background.ready, players: o.players },
      serverCpuPercent: serverFrom && serverTo ? cpuPercent(serverFrom, serverTo) : null,
    };
    const rows: Row[] = [
      ["GET", url],
      ["connections", fmtNum(o.connections)],
      ["responses / window", `${fmtNum(responses)} in ${(windowMs / 1000).toFixed(1)} s`],
      ["requests/s", fmtNum(results.requestsPerSec, 1)],
      ["latency p50 / p99 / max", fmtLatency(s)],
      ["response size (avg)", results.responseBytes.avg === null ? "\u2014" : `${fmtNum(results.responseBytes.avg)} B`],
      [
        "status counts",
        statuses.size ? Object.entries(results.statuses).map(([k, n]) => `${k}: ${n}`).join(", ") : "\u2014",
      ],
    ];
    if (background) {
      rows.push(["background rooms ready / target", `${fmtNum(background.ready)} / ${fmtNum(background.target)}`]);
    }
    if (results.serverCpuPercent !== null) rows.push(["server CPU", `${results.serverCpuPercent} % of one core`]);
    return { results, rows, errors };
  };

  const status = (): RunStatus => {
    if (phase === "rooms" && rooms) return { ...rooms.status(), phase };
    const total = o.duration * 1000;
    const elapsed = phase === "requests" ? Math.min(total, clock.monotonic() - windowStart) : total;
    const detail = `${responses} responses, ${perSecond(responses, elapsed)}/s, p99 ${
      latency.quantile(0.99)?.toFixed(1) ?? "\u2014"
    } ms, ${errors.total} errors`;
    return { phase, done: elapsed, total, detail };
  };

  return { status, result: run() };
}
