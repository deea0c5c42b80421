/**
 * The game server's network side: the TCP listener, per-connection sessions,
 * connection limits and graceful shutdown (issue 3 "Sessions", "Lifecycle").
 *
 * The accept loop never waits for a connection to do anything: each one gets
 * its own session task, so a silent client cannot delay anyone else's login
 * (unlike the official server, protocol.md §5.1 quirk 7).
 *
 * @module
 */

import type net from "node:net";
import { addressGroup, canonicalIp, CidrSet, readProxyHeader, WindowCounter } from "../net/mod.ts";
import { ByteBudget } from "../session/byte_budget.ts";
import { type LoginLimits, PRE_AUTH_LIMITS } from "../session/login_machine.ts";
import { type PushLink, Session, type SessionHooks, type Transport } from "../session/session.ts";
import type { TimerHandle } from "../util/clock.ts";
import { dispatch, serverPipeline } from "./commands.ts";
import type { ServerContext } from "./context.ts";
import { ServerCore } from "./core.ts";
import type { CommandPipeline } from "./pipeline.ts";
import { sessionClosed } from "./presence.ts";
import { RoomMonitor } from "./room_monitor.ts";
import { adoptSocket, bindSession, listenTcp, netAddr, SocketLink } from "./socket_link.ts";
import { WriteBatch } from "./write_batch.ts";

/** Connections accepted beyond `max_sessions` only to tell them the server is full. */
const OVERFLOW_SLACK = 64;
/** How often session timeouts are checked; a lost connection is noticed at most this late. */
const SWEEP_INTERVAL_MS = 1000;
/** Time a trusted proxy has to send its PROXY header (spec 3 §4.1). */
const PROXY_HEADER_TIMEOUT_MS = 3000;

/**
 * The canonical text of a client address (`canonicalIp`: RFC 5952, and
 * `::ffff:1.2.3.4` from a dual-stack socket as `1.2.3.4`); text that is not
 * an address is kept as it is.
 */
export function normalizeIp(ip: string): string {
  return canonicalIp(ip) ?? ip;
}

/** A running game server. */
export class GameServer {
  readonly core: ServerCore;
  /**
   * The command pipeline (`pipeline.ts`): extensions veto commands through
   * `commands.beforeCommand(hook)`, in-tree features answer some through
   * `commands.use(link)` (the in-game console).
   */
  readonly commands: CommandPipeline;
  /** The room-monitor feature (protocol.md §3.5): the connected monitor, if any. */
  readonly roomMonitor: RoomMonitor;
  #listener: net.Server | null = null;
  /** Coalesces each socket's frames of one event-loop turn into one write. */
  readonly #writes = new WriteBatch();
  #nextSession = 1;
  /** Bytes all sessions may buffer for frames in flight (`frame_buffer_budget_mb`, issue 14). */
  readonly frameBudget: ByteBudget;
  #limits: LoginLimits | null = null;
  #stopped: Promise<void> | null = null;
  readonly #proxies: CidrSet;
  /** One hooks object shared by every session (per-session closures would cost memory per connection). */
  readonly #hooks: SessionHooks;
  readonly #connections: WindowCounter;
  #sweep: TimerHandle | undefined;
  /** Command handlers running (some wait on the upstream); shutdown lets them reply before closing. */
  #inFlight = 0;
  #idle: (() => void) | null = null;

  constructor(ctx: ServerContext) {
    this.core = new ServerCore(ctx);
    const core = this.core;
    // Features attach from outside the core: their own bus listeners, effect handlers and pipeline links.
    this.roomMonitor = new RoomMonitor(core);
    this.commands = serverPipeline({ roomMonitor: this.roomMonitor });
    const commands = this.commands;
    this.#hooks = {
      handle: (s, inbound) => {
        const running = dispatch(core, commands, s, inbound);
        return running ? this.#track(running) : undefined;
      },
      closed: (s, reason) => {
        core.ctx.log.debug("session closed", { session: s.id, reason });
        sessionClosed(core, s);
      },
      count: (name) => core.counters.inc(name),
    };
    this.#proxies = new CidrSet(ctx.config.proxy_allow_cidr);
    this.#connections = new WindowCounter(ctx.config.connection_rate_limit, ctx.config.connection_rate_window * 1000);
    this.frameBudget = new ByteBudget(ctx.config.frame_buffer_budget_mb * 1024 * 1024);
  }

  /** The current context (its configuration changes on `config reload`). */
  get ctx(): ServerContext {
    return this.core.ctx;
  }

  /** The bound address, once listening. */
  get address(): Deno.NetAddr | null {
    return this.#listener ? netAddr(this.#listener) : null;
  }

  /**
   * Binds `bind_address:port` (port 0 = any free port) on `node:net`
   * (issue 15). A dual-stack `::` falls back to `0.0.0.0` where IPv6 is
   * unavailable. Rejects with the bind error (`EADDRINUSE`: see `bindWithRetry`).
   */
  async listen(): Promise<Deno.NetAddr> {
    const { bind_address: hostname, port } = this.ctx.config;
    const log = this.ctx.log;
    const accept = (socket: net.Socket) => void this.#admit(socket);
    try {
      this.#listener = await listenTcp(hostname, port, accept, log);
    } catch (error) {
      if (hostname !== "::" || (error as { code?: unknown }).code === "EADDRINUSE") throw error;
      log.warn("IPv6 unavailable, listening on IPv4 only", { reason: String(error) });
      this.#listener = await listenTcp("0.0.0.0", port, accept, log);
    }
    this.#armSweep();
    return netAddr(this.#listener)!;
  }

  /**
   * Reads the PROXY header of trusted proxies (the real client address then
   * drives rate limits, bans and IP history), applies the per-address
   * connection limit, then starts the session. Runs per connection, so a
   * slow proxy never holds up the accept loop.
   */
  async #admit(socket: net.Socket): Promise<void> {
    adoptSocket(socket);
    if (!socket.remoteAddress) {
      // Reset before it was accepted: nothing to serve.
      socket.destroy();
      return;
    }
    const peer = normalizeIp(socket.remoteAddress);
    let ip = peer;
    let first: Uint8Array | null = null;
    if (!this.#proxies.empty && this.#proxies.contains(peer)) {
      const header = await readProxyHeader(socket, this.ctx.clock, PROXY_HEADER_TIMEOUT_MS);
      if (!header.ok) {
        this.ctx.log.info("dropping connection from proxy", { ip: peer, reason: header.reason });
        socket.destroy();
        return;
      }
      first = header.rest;
      ip = header.ip ? normalizeIp(header.ip) : peer;
    }
    if (!this.core.switches.connections) {
      // `connections off` (spec 3 §4.2): new connections are turned away.
      this.core.counters.inc("sessions_rejected_full");
      socket.destroy();
      return;
    }
    // Per client: an IPv6 host has its whole /64 to pick addresses from (`addressGroup`).
    if (!this.#connections.hit(addressGroup(ip), this.ctx.clock.monotonic())) {
      this.core.counters.inc("connections_rate_limited");
      this.ctx.log.info("connection rate limit exceeded", { ip });
      socket.destroy();
      return;
    }
    const session = this.attach(new SocketLink(socket, this.#writes), ip);
    if (session) bindSession(socket, session, first);
  }

  /**
   * Starts a session on any transport: a socket's push link, or a
   * pull-style one (tests, benchmarks, in-process pipes), which is read
   * here. Returns null when the server refuses it outright.
   */
  attach(transport: Transport | PushLink, ip: string): Session | null {
    const core = this.core;
    const { config, clock, log } = this.ctx;
    if (core.shuttingDown || core.sessions.size >= config.max_sessions + OVERFLOW_SLACK) {
      core.counters.inc("sessions_rejected_full");
      closeQuietly(transport);
      return null;
    }
    const id = this.#nextSession++;
    const session = new Session(transport, this.#hooks, {
      id,
      ip,
      clock,
      log,
      heartbeatTimeoutMs: config.heartbeat_timeout * 1000,
      authTimeoutMs: config.auth_timeout * 1000,
      frameBudget: this.frameBudget,
      loginLimits: this.#loginLimits(config.auth_timeout * 1000),
    });
    session.overCapacity = core.sessions.size >= config.max_sessions;
    if (!this.#sweep) this.#armSweep();
    core.sessions.add(session);
    log.debug("connection accepted", { session: id, ip });
    void session.run();
    return session;
  }

  /** The login limits every session shares (remade when `auth_timeout` changes on a reload). */
  #loginLimits(authTimeoutMs: number): LoginLimits {
    if (this.#limits?.authTimeoutMs !== authTimeoutMs) this.#limits = { ...PRE_AUTH_LIMITS, authTimeoutMs };
    return this.#limits;
  }

  /** Once a second: heartbeat and authentication timeouts of every session (see `Session.checkTimeouts`). */
  #armSweep(): void {
    const { clock } = this.ctx;
    this.#sweep = clock.setTimeout(() => {
      if (this.core.shuttingDown) return;
      const now = clock.monotonic();
      for (const session of this.core.sessions) session.checkTimeouts(now);
      this.#armSweep();
    }, SWEEP_INTERVAL_MS);
  }

  #track(handling: Promise<void>): Promise<void> {
    this.#inFlight++;
    return handling.finally(() => {
      if (--this.#inFlight > 0 || !this.#idle) return;
      const wake = this.#idle;
      this.#idle = null;
      wake();
    });
  }

  /** Resolves once no command handler is running. */
  #handlersIdle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  /**
   * Graceful shutdown: stop accepting, tell every player (localized), let
   * commands in flight (an upstream lookup, a login) finish and queued
   * replies flush, and close everything within `budgetMs` (default
   * `graceful_shutdown_timeout`; issue 3 "Lifecycle").
   */
  shutdown(options: { budgetMs?: number } = {}): Promise<void> {
    if (!this.#stopped) this.#stopped = this.#shutdown(options.budgetMs);
    return this.#stopped;
  }

  async #shutdown(budget?: number): Promise<void> {
    const core = this.core;
    const { clock, config, log } = this.ctx;
    const budgetMs = budget ?? config.graceful_shutdown_timeout * 1000;
    core.shuttingDown = true;
    core.clearTimers();
    clock.clearTimeout(this.#sweep);
    // Stops accepting; open connections are closed below, after they were told.
    this.#listener?.close();
    const sessions = [...core.sessions];
    const players = sessions.filter((s) => s.state === "active" && s.userId !== null).map((s) => s.userId!);
    core.sendText(players, { key: "server-shutting-down" });
    let timer: TimerHandle | undefined;
    const deadline = new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, budgetMs)));
    const settled = (async () => {
      // A reply still waiting on the upstream is queued only when its handler
      // finishes: wait for handlers first, then for the queues to drain.
      await this.#handlersIdle();
      await Promise.all(sessions.map((s) => s.outbound.drained()));
    })();
    await Promise.race([settled, deadline]);
    clock.clearTimeout(timer);
    for (const s of sessions) s.close("shutdown");
    for (const user of core.users.values()) clock.clearTimeout(user.dangle);
    core.clearTimers();
    log.info("game server stopped", { sessions: sessions.length });
  }
}

function closeQuietly(transport: Transport | PushLink): void {
  try {
    transport.close();
  } catch {
    // Already closed.
  }
}
