/**
 * The OpenUDS listener (spec 3 §4.5; Unix only): binds `openuds.socket_path`
 * after removing a stale socket file (never another kind of file, never a
 * socket another process still answers on), sets mode 0660, and admits at
 * most `max_connections` authenticated clients; the next one to
 * authenticate gets an `auth_error` frame and is closed. Connections not
 * authenticated yet do not count against operators (issue 14): they have 5 s
 * to authenticate and their own bound ({@link MAX_UNAUTHENTICATED}; a
 * newcomer pushes the oldest out). The game server runs the same with or
 * without clients.
 *
 * @module
 */

import { dirname } from "node:path";
import type { ServerOps } from "../ops/mod.ts";
import { FailureThrottle } from "../util/failure_throttle.ts";
import type { LogHub } from "../util/log.ts";
import { PendingApprovals } from "./approvals.ts";
import { type ConnectionContext, OPENUDS_AUTH_LIMITS, UdsConnection } from "./connection.ts";
import { encodeFrame } from "./framing.ts";

/** Connections not authenticated yet (or waiting for approval) at most; a newcomer pushes the oldest out. */
export const MAX_UNAUTHENTICATED = 16;

/** The `openuds` configuration section (spec 3 §4.5). */
export interface OpenUdsConfig {
  readonly enabled: boolean;
  readonly socket_path: string;
  readonly auth_token: string;
  readonly max_connections: number;
  readonly event_buffer_size: number;
  readonly heartbeat_interval_secs: number;
  readonly approval_ttl_secs: number;
}

/** Dependencies of {@link startOpenUds}. */
export interface OpenUdsDeps {
  /** The operations: every command is the operation of that name (`cli.execute` reaches the console). */
  readonly ops: ServerOps;
  /** The `openuds` configuration section (read at start; changes need a restart). */
  readonly config: OpenUdsConfig;
  /** Shared with the console's `approve openuds`; made here when absent. */
  readonly approvals?: PendingApprovals;
  /** Log history and the `logs` stream. */
  readonly logs?: LogHub;
}

/** A running OpenUDS listener. */
export interface OpenUdsHandle {
  readonly path: string;
  readonly approvals: PendingApprovals;
  /** Open connections (authenticated or not). */
  readonly connections: number;
  /** Stops listening, closes every client and removes the socket file. */
  close(): Promise<void>;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Removes a stale socket file; refuses other files and live sockets. */
async function clearSocketPath(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!info.isSocket) throw new Error(`Cannot start OpenUDS: "${path}" exists and is not a socket`);
  let live = false;
  try {
    const probe = await Deno.connect({ transport: "unix", path });
    probe.close();
    live = true;
  } catch {
    // Nobody answers: a stale file from an earlier run.
  }
  if (live) throw new Error(`Cannot start OpenUDS: another process is listening on "${path}"`);
  await Deno.remove(path);
}

/** Starts the local socket API. Rejects on Windows and when the path cannot be used. */
export async function startOpenUds(deps: OpenUdsDeps): Promise<OpenUdsHandle> {
  if (Deno.build.os === "windows") throw new Error("Cannot start OpenUDS: Unix domain sockets need a Unix platform");
  const { config, ops } = deps;
  const { clock, log: serverLog } = ops.context.core.ctx;
  const log = serverLog.child({ component: "openuds" });
  const path = config.socket_path;
  await Deno.mkdir(dirname(path), { recursive: true });
  await clearSocketPath(path);
  const listener = Deno.listen({ transport: "unix", path });
  await Deno.chmod(path, 0o660);
  const approvals = deps.approvals ?? new PendingApprovals(clock, config.approval_ttl_secs);
  const expected = await sha256(config.auth_token);
  const connections = new Set<UdsConnection>();
  const running = new Set<Promise<void>>();
  const ctx: ConnectionContext = {
    ops,
    config,
    approvals,
    logs: deps.logs,
    clock,
    log,
    async tokenMatches(token) {
      const given = await sha256(token);
      let diff = 0;
      for (let i = 0; i < given.length; i++) diff |= given[i]! ^ expected[i]!;
      return diff === 0;
    },
    authenticated: () => [...connections].filter((c) => c.state === "active").length,
    failures: new FailureThrottle(OPENUDS_AUTH_LIMITS),
    closed: (c) => connections.delete(c),
  };
  // The `openuds` section of `runtime.status`, `runtime.actors` and `server.stats` (`openuds_connections`).
  const removeSection = ops.context.addStatusSection("openuds", () => ({
    connections: ctx.authenticated(),
    max_connections: config.max_connections,
    event_buffer_size: config.event_buffer_size,
    heartbeat_interval_secs: config.heartbeat_interval_secs,
  }));
  /**
   * Keeps the unauthenticated connections under {@link MAX_UNAUTHENTICATED}
   * by closing the oldest one that has not even sent `authenticate`: an
   * operator's tool authenticates at once, so idle connections cannot keep
   * it out. Connections waiting for approval stay until they expire; when
   * they alone fill the bound, false: the newcomer is refused.
   */
  const makeRoom = (): boolean => {
    let waiting = 0;
    let oldest: UdsConnection | null = null;
    for (const c of connections) {
      if (c.state === "active" || c.state === "closed") continue;
      waiting++;
      if (c.state === "new") oldest ??= c;
    }
    if (waiting < MAX_UNAUTHENTICATED) return true;
    if (!oldest) return false;
    log.warn("OpenUDS: too many unauthenticated connections; closing the oldest", { max: MAX_UNAUTHENTICATED });
    track(oldest.refuse("TOO_MANY_CONNECTIONS", `too many unauthenticated connections (${MAX_UNAUTHENTICATED})`));
    return true;
  };
  const track = (p: Promise<void>) => {
    running.add(p);
    void p.finally(() => running.delete(p));
  };
  let stopping = false;
  const accept = (async () => {
    try {
      for await (const conn of listener) {
        if (!makeRoom()) {
          const frame = encodeFrame({
            type: "auth_error",
            code: "TOO_MANY_CONNECTIONS",
            message: `too many unauthenticated connections (${MAX_UNAUTHENTICATED})`,
          });
          track(conn.write(frame).then(() => {}, () => {}).finally(() => conn.close()));
          continue;
        }
        const c = new UdsConnection(conn, ctx);
        connections.add(c);
        track(c.run());
      }
    } catch (error) {
      if (!stopping) log.error("OpenUDS accept loop failed", { error: String(error) });
    }
  })();
  log.info("OpenUDS listening", {
    path,
    mode: config.auth_token ? "token" : "approval",
    max_connections: config.max_connections,
  });
  return {
    path,
    approvals,
    get connections() {
      return connections.size;
    },
    async close() {
      if (stopping) return;
      stopping = true;
      removeSection();
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      await accept;
      for (const c of [...connections]) c.close();
      await Promise.all([...running]);
      if (!deps.approvals) approvals.clear();
      await Deno.remove(path).catch(() => {});
    },
  };
}
