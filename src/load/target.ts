/**
 * What a load run talks to: the development upstream (started as a child
 * process on a free port below 32768 unless `--upstream` is given;
 * platform.md §3) and the game server -- given by address, or spawned as a
 * child process of our own `main.ts` on a free loopback port, in a scratch
 * working directory, and stopped at the end.
 *
 * @module
 */

import type { LoadOptions } from "./args.ts";
import { type Child, spawnDeno, waitListening } from "./child.ts";
import { monitorIds } from "./scenario_rooms.ts";
import type { RunTarget } from "./scenario.ts";

/** An opened target; `close()` stops whatever was started. */
export interface OpenTarget {
  readonly target: RunTarget;
  readonly upstreamUrl: string;
  readonly spawned: boolean;
  /** Lines worth printing before the run (addresses, hints). */
  readonly notes: string[];
  /** Stops the spawned server (SIGTERM, then SIGKILL) and the upstream; returns lines worth printing. */
  close(): Promise<string[]>;
  /** Kills the children at once (second Ctrl-C). */
  kill(): void;
}

const LOW = 20000;
const HIGH = 32000;

/** A port below the ephemeral range (32768+) that was free a moment ago, and not one of `except`. */
export function freePort(attempts = 50, except: readonly number[] = []): number {
  for (let i = 0;; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    // Two ports picked one after the other for one server (game and HTTP) must differ: the first is free again.
    if (except.includes(port)) continue;
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse) || i >= attempts) throw error;
    }
  }
}

/** Server flags a scenario needs (capacity, monitors), before the user's own. */
export function serverFlagsFor(o: LoadOptions): string[] {
  switch (o.scenario) {
    case "sessions":
      return ["--max-sessions", String(Math.max(4096, o.sessions + 64))];
    case "rooms":
      return [
        "--max-sessions",
        String(Math.max(4096, o.rooms * (o.players + 1) + 64)),
        "--monitors",
        JSON.stringify(monitorIds(o)),
      ];
    case "logins":
      return ["--max-pending-auth", String(Math.max(256, o.concurrency * 2))];
    case "sse":
      return [];
    case "http":
      return ["--max-sessions", String(Math.max(4096, o.rooms * o.players + 64))];
  }
}

/** Scenarios that talk to the HTTP port. */
function usesHttp(o: LoadOptions): o is Extract<LoadOptions, { httpPort: number }> {
  return o.scenario === "sse" || o.scenario === "http";
}

const here = (path: string) => new URL(path, import.meta.url).pathname;

/** Opens the upstream and the server of a run. */
export async function openTarget(o: LoadOptions): Promise<OpenTarget> {
  const notes: string[] = [];
  const children: Child[] = [];
  const dir = await Deno.makeTempDir({ prefix: "chorus-load-" });
  const closeAll = async () => {
    const out: string[] = [];
    for (const c of children.reverse()) {
      const s = await c.stop();
      if (!s.success && s.signal !== "SIGTERM") out.push(`pid ${c.pid} exited with ${s.code}:\n${c.tail.join("\n")}`);
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    return out;
  };
  try {
    let upstreamUrl = o.upstream;
    if (upstreamUrl === null) {
      const port = freePort();
      const child = spawnDeno(["run", "-A", here("./upstream_child.ts"), String(port)], dir);
      children.push(child);
      await waitListening(child, port);
      upstreamUrl = `http://127.0.0.1:${port}`;
      notes.push(`upstream: ${upstreamUrl} (development upstream, pid ${child.pid})`);
    } else notes.push(`upstream: ${upstreamUrl}`);
    if (!o.spawn) {
      notes.push(`server: ${o.host}:${o.port}${o.serverPid ? ` (pid ${o.serverPid})` : ""}`);
      return {
        target: { host: o.host, port: o.port, pid: o.serverPid, httpPort: usesHttp(o) ? o.httpPort : null },
        upstreamUrl,
        spawned: false,
        notes,
        close: closeAll,
        kill: () => children.forEach((c) => c.kill()),
      };
    }
    const port = freePort();
    const httpPort = usesHttp(o) ? freePort() : 0;
    const deno = [
      "run",
      "-A",
      ...(o.cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${o.cpuProf}`] : []),
      ...(o.serverV8Flags ? [`--v8-flags=${o.serverV8Flags}`] : []),
    ];
    const env = Object.fromEntries(
      (o.serverEnv?.split(",") ?? []).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    );
    const flags = [
      ...["--port", String(port), "--bind-address", "127.0.0.1"],
      ...["--http-port", String(httpPort), "--http-bind-address", "127.0.0.1"],
      ...["--game-api-endpoint", upstreamUrl, "--graceful-shutdown-timeout", "1"],
      // Every simulated player connects from 127.0.0.1: per-address limits would measure themselves.
      ...["--connection-rate-limit", "1000000", "--max-pending-auth-per-ip", "1000000"],
      ...["--log-level", "warn", "--cli-enabled", "false"],
      ...serverFlagsFor(o),
      ...o.serverArgs,
    ];
    // The scratch working directory means no server_config.yml or data/ of the checkout is read or written.
    const server = spawnDeno([...deno, here("../../main.ts"), "start", ...flags], dir, env);
    children.push(server);
    await waitListening(server, port, 60_000);
    if (httpPort) await waitListening(server, httpPort, 10_000);
    notes.push(
      `server: spawned pid ${server.pid} on 127.0.0.1:${port}${o.cpuProf ? `, CPU profile \u2192 ${o.cpuProf}` : ""}`,
    );
    return {
      target: { host: "127.0.0.1", port, pid: server.pid, httpPort: httpPort || null },
      upstreamUrl,
      spawned: true,
      notes,
      close: closeAll,
      kill: () => children.forEach((c) => c.kill()),
    };
  } catch (error) {
    await closeAll();
    throw new Error(`Cannot start the target: ${error instanceof Error ? error.message : String(error)}`);
  }
}
