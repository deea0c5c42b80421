/**
 * The servers under comparison as child processes: Chorus as `deno task
 * start` runs it (the task's permission flags, a scratch working directory,
 * so a fresh data directory) and tphira-mp as its README runs it (`node
 * dist/server/main.js` with a `server_config.yml`; `PHIRA_MP_HOME` points at
 * a scratch directory holding that file and a link to its `locales/`). Both
 * authenticate against the same development upstream, log at warn level and
 * list the load generator's monitor ids.
 *
 * Every child starts through `sh -c 'ulimit -n <hard limit>; exec ...'`, so
 * 10,000 sessions never hit the soft descriptor limit.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { denoTasks, type RunTask, runTask } from "../../util/deno_tasks.ts";
import { type Child, spawnProgram, waitListening } from "../child.ts";
import type { ServerKind } from "./args.ts";

/** What a server needs to know about the run. */
export interface ServerSetup {
  readonly port: number;
  readonly upstream: string;
  /** Monitor ids the load generator uses (config `monitors`). */
  readonly monitors: readonly number[];
  /** Sessions the server must admit. */
  readonly maxSessions: number;
  /** Chorus only: `--database-url` (null: the embedded default store). */
  readonly databaseUrl: string | null;
}

/** A program and its arguments, working directory and added environment. */
export interface Launch {
  readonly program: string;
  readonly args: string[];
  readonly env: Record<string, string>;
}

/** Human names used in the tables. */
export const SERVER_LABELS: Record<ServerKind, string> = {
  chorus: "Chorus, embedded default store",
  "chorus-pg": "Chorus, PostgreSQL",
  tphira: "tphira-mp",
};

/** The permission flags and script of `deno task start` from `deno.json` text (never `-A`: we run what users run). */
export function startTask(denoJson: string): RunTask {
  return runTask(denoTasks(denoJson), "start");
}

/** Runs `deno task cache` in the checkout `cwd`: the bundle `deno task start` runs, and Deno's parse caches. */
async function runCacheTask(cwd: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["task", "-q", "cache"], cwd, stdin: "null" }).output();
  if (!out.success) throw new Error(`deno task cache failed: ${new TextDecoder().decode(out.stderr).trim()}`);
}

/** `deno` arguments that start Chorus for a run. */
export function chorusArgs(flags: readonly string[], main: string, s: ServerSetup): string[] {
  return [
    "run",
    ...flags,
    main,
    "start",
    ...["--port", String(s.port), "--bind-address", "127.0.0.1"],
    ...["--http-port", "0", "--http-bind-address", "127.0.0.1"],
    ...["--game-api-endpoint", s.upstream, "--graceful-shutdown-timeout", "1"],
    // Every simulated player connects from 127.0.0.1: per-address limits would measure themselves.
    ...["--connection-rate-limit", "1000000", "--max-pending-auth-per-ip", "1000000"],
    ...["--log-level", "warn", "--cli-enabled", "false"],
    ...["--max-sessions", String(Math.max(4096, s.maxSessions + 64))],
    ...["--monitors", JSON.stringify(s.monitors)],
    ...(s.databaseUrl ? ["--database-url", s.databaseUrl] : []),
  ];
}

/**
 * tphira-mp's `server_config.yml` for a run. `REPLAY_ENABLED` is on because
 * tphira-mp marks a room live (and relays touches and judges to monitors)
 * only when it records it (peers.md §2.8); without it nothing is relayed.
 */
export function tphiraConfig(s: ServerSetup): string {
  return [
    `HOST: "127.0.0.1"`,
    `PORT: ${s.port}`,
    `HTTP_SERVICE: false`,
    `LOG_LEVEL: WARN`,
    `ROOM_MAX_USERS: 8`,
    `REPLAY_ENABLED: true`,
    `PHIRA_API_ENDPOINT: ${JSON.stringify(s.upstream)}`,
    `OUTBOUND_PROXY: false`,
    `monitors: [${s.monitors.join(", ")}]`,
    "",
  ].join("\n");
}

/** Wraps a launch so that the child raises its descriptor limit to the hard limit first. */
export function withFileLimit(program: string, args: readonly string[]): { program: string; args: string[] } {
  return {
    program: "sh",
    args: ["-c", 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"', program, ...args],
  };
}

/** Where the servers' programs are. */
export interface ServerPaths {
  /** `deno.json` of this checkout. */
  readonly denoJson: string;
  readonly tphiraDir: string | null;
  readonly node: string;
}

/** Starts one server in the scratch directory `dir`; resolves once its game port accepts connections. */
export async function startServer(kind: ServerKind, s: ServerSetup, paths: ServerPaths, dir: string): Promise<Child> {
  let launch: Launch;
  if (kind === "tphira") {
    if (!paths.tphiraDir) throw new Error("Cannot start tphira-mp: no --tphira-dir");
    await Deno.writeTextFile(join(dir, "server_config.yml"), tphiraConfig(s));
    await Deno.symlink(join(paths.tphiraDir, "locales"), join(dir, "locales"));
    launch = {
      program: paths.node,
      args: [join(paths.tphiraDir, "dist/server/main.js")],
      env: { PHIRA_MP_HOME: dir },
    };
  } else {
    const denoJson = await Deno.readTextFile(paths.denoJson);
    // As `deno task start` does: `deno task cache` builds the bundle and parses the modules, not the server.
    await runCacheTask(dirname(paths.denoJson));
    const task = startTask(denoJson);
    launch = {
      program: Deno.execPath(),
      args: chorusArgs(task.flags, join(dirname(paths.denoJson), task.script), s),
      env: {},
    };
  }
  const wrapped = withFileLimit(launch.program, launch.args);
  const child = spawnProgram(wrapped.program, wrapped.args, dir, launch.env);
  try {
    await waitListening(child, s.port, 120_000);
  } catch (error) {
    await child.stop(2000);
    throw new Error(`Cannot start ${kind}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return child;
}
