/**
 * The phases of one server in a comparison, each on a fresh server process
 * with a fresh development upstream (so no phase inherits another's rooms,
 * caches or heap): `idle` (RSS after start, then N idle sessions), `relay`
 * and `big` (R rooms × 8 players + 1 monitor at client rates, sampled from
 * `/proc` throughout).
 *
 * @module
 */

import type { Child } from "../child.ts";
import { spawnDeno, waitListening } from "../child.ts";
import { freePort } from "../target.ts";
import type { CompareOptions, ServerKind } from "./args.ts";
import { type IdleFigures, idleFigures, type RelayFigures, relayFigures } from "./figures.ts";
import { monitorIdsFor, runGenerators, splitRooms } from "./generator.ts";
import { readSample, type Sample, Sampler } from "./sampler.ts";
import { type ServerPaths, startServer } from "./servers.ts";

const UPSTREAM_CHILD = new URL("../upstream_child.ts", import.meta.url).pathname;
const PLAYERS = 8;

/** How a phase reaches the outside: paths, a fresh scratch database, progress lines. */
export interface PhaseEnv {
  readonly paths: ServerPaths;
  /** Chorus's `--database-url` for this kind (a fresh database each call), or null. */
  readonly database: (kind: ServerKind) => Promise<string | null>;
  readonly say: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `body` with a fresh upstream and server in a scratch directory; stops both after. */
async function withServer<T>(
  kind: ServerKind,
  sizes: { monitors: number[]; maxSessions: number },
  env: PhaseEnv,
  body: (server: Child, port: number, upstream: string, dir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: `bench-${kind}-` });
  const children: Child[] = [];
  try {
    const upPort = freePort();
    const up = spawnDeno(["run", "-A", UPSTREAM_CHILD, String(upPort)], dir);
    children.push(up);
    await waitListening(up, upPort);
    const upstream = `http://127.0.0.1:${upPort}`;
    const port = freePort();
    const databaseUrl = await env.database(kind);
    const server = await startServer(kind, { port, upstream, databaseUrl, ...sizes }, env.paths, dir);
    children.push(server);
    env.say(`  ${kind}: pid ${server.pid} on 127.0.0.1:${port}, upstream ${upstream}`);
    return await body(server, port, upstream, dir);
  } finally {
    for (const c of children.reverse()) await c.stop(10_000);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** RSS after start, then `--sessions` idle logged-in sessions pinging every 3 s. */
export function idlePhase(kind: ServerKind, o: CompareOptions, env: PhaseEnv): Promise<IdleFigures> {
  return withServer(
    kind,
    { monitors: monitorIdsFor(1), maxSessions: o.sessions },
    env,
    async (server, port, up, dir) => {
      await sleep(o.settle * 1000);
      const start = readSample(server.pid);
      if (!start) throw new Error(`${kind} exited after start:\n${server.tail.join("\n")}`);
      env.say(`  ${kind}: RSS after start ${Math.round(start.rssBytes / 1048576)} MiB; ${o.sessions} sessions\u2026`);
      const [report] = await runGenerators("sessions", { port, pid: server.pid, upstream: up }, [[
        ...["--sessions", String(o.sessions), "--ramp-per-sec", String(o.rampPerSec)],
        ...["--duration", String(o.hold), "--id-base", "200000"],
      ]], dir);
      return idleFigures(start.rssBytes, report);
    },
  );
}

/** `rooms` rooms × 8 players + 1 monitor for `duration` seconds after setup, on `procs` generator processes. */
export function relayPhase(
  kind: ServerKind,
  rooms: number,
  duration: number,
  procs: number,
  o: CompareOptions,
  env: PhaseEnv,
): Promise<{ figures: RelayFigures; samples: Sample[] }> {
  const sizes = { monitors: monitorIdsFor(rooms), maxSessions: rooms * (PLAYERS + 1) };
  return withServer(kind, sizes, env, async (server, port, up, dir) => {
    const setupLimit = Math.ceil(rooms / o.roomRamp) + o.setupGrace;
    env.say(`  ${kind}: ${rooms} rooms for ${duration} s (setup limit ${setupLimit} s)\u2026`);
    const sampler = new Sampler(server.pid);
    sampler.start(o.sampleInterval * 1000);
    let reports;
    try {
      const shares = splitRooms(rooms, PLAYERS, procs);
      reports = await runGenerators(
        "rooms",
        { port, pid: server.pid, upstream: up },
        shares.map((s) => [
          ...["--rooms", String(s.rooms), "--players", String(PLAYERS)],
          ...["--id-base", String(s.idBase), "--monitor-base", String(s.monitorBase)],
          ...["--duration", String(duration), "--round-secs", String(o.roundSecs)],
          ...["--ramp-per-sec", String(o.roomRamp / shares.length)],
          // A saturated server may never finish setting up every room: the window then measures those ready.
          ...["--setup-limit", String(setupLimit)],
        ]),
        dir,
        // Setup, the window, the generator's 30 s teardown, and slack; past that the generator is stuck.
        (setupLimit + duration + 120) * 1000,
      );
    } finally {
      sampler.stop();
    }
    const figures = relayFigures(reports, sampler.samples, o.roundSecs, navigator.hardwareConcurrency);
    return { figures, samples: sampler.samples };
  });
}
