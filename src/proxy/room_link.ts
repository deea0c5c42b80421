/**
 * The proxy's one room-monitor session to the game server (extended.md
 * §5.2): `RoomMonitorAuthenticate` with the derived key, a `QueryRoomInfo`
 * right after login and then at most once a second on demand, pushed
 * `RoomEvent`s applied to the {@link RoomCache} and relayed, `UserVisit`
 * ids handed on. When the session drops -- refused, closed, silent for too
 * long -- the picture is forgotten, the reason is kept for REST answers
 * (503, never a hang), and the link reconnects with exponential back-off.
 *
 * Works with any server speaking the monitor protocol of the HSN fork
 * (protocol.md §3.5): nothing here depends on this project's game server.
 *
 * @module
 */

import { type ByteConn, ClientError, PhiraClient } from "../client/mod.ts";
import type { ServerCommand } from "../protocol/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { Random } from "../util/random.ts";
import { type Dialer, type ServerAddress, tcpDialer } from "./dialer.ts";
import {
  LINK_TIMING_DEFAULTS,
  type LinkCounts,
  type LinkStatus,
  LinkUnavailable,
  type RoomLinkTiming,
} from "./link_status.ts";
import { RoomCache, type RoomStreamEvent } from "./room_cache.ts";

export { type Dialer, type ServerAddress, tcpDialer } from "./dialer.ts";
export { type LinkCounts, type LinkStatus, LinkUnavailable, type RoomLinkTiming } from "./link_status.ts";

/** Construction options of {@link RoomLink}. */
export interface RoomLinkOptions {
  readonly address: ServerAddress;
  /** The 64-byte `room_monitor` key (extended.md §5.2). */
  readonly key: Uint8Array;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  readonly dialer?: Dialer;
  readonly timing?: RoomLinkTiming;
  /** Room-stream events to relay, in order. */
  readonly onEvents: (events: RoomStreamEvent[]) => void;
  /** A player logged in on the game server (`UserVisit`). */
  readonly onVisit: (user: number) => void;
  /** The link went down (after having been up): the picture is gone. */
  readonly onDown: (reason: string) => void;
}

/** The room-monitor session, kept alive. */
export class RoomLink {
  /** The rooms as last known (empty while down). */
  readonly cache: RoomCache = new RoomCache();
  readonly #o: RoomLinkOptions;
  readonly #t: Required<RoomLinkTiming>;
  readonly #dialer: Dialer;
  #status: LinkStatus;
  #client: PhiraClient | null = null;
  #lastSync = -Infinity;
  #query: Promise<void> | null = null;
  #lastPacket = 0;
  #watchdog: TimerHandle | undefined;
  #retry: { timer: TimerHandle; wake: () => void } | null = null;
  #abort: AbortController | null = null;
  #stopped = false;
  #running: Promise<void> | null = null;
  #counts: LinkCounts = { connects: 0, queries: 0, visits: 0, events: 0 };

  constructor(options: RoomLinkOptions) {
    this.#o = options;
    this.#t = { ...LINK_TIMING_DEFAULTS, ...options.timing };
    this.#dialer = options.dialer ?? tcpDialer;
    this.#status = { status: "down", reason: "not connected yet", since: options.clock.now() };
  }

  /** Up, or down with the reason. */
  get status(): LinkStatus {
    return this.#status;
  }

  /** Counters: sessions opened, queries sent, visits and room events received. */
  get counts(): LinkCounts {
    return { ...this.#counts };
  }

  /** Starts connecting (and reconnecting until {@link stop}). */
  start(): void {
    this.#running ??= this.#loop();
  }

  /** Closes the session and stops reconnecting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort?.abort();
    if (this.#retry) {
      this.#o.clock.clearTimeout(this.#retry.timer);
      this.#retry.wake();
    }
    await this.#client?.close();
    await this.#running;
  }

  /**
   * Resolves once the picture is at most a second old, sending one
   * `QueryRoomInfo` when it is older (concurrent callers share it). Rejects
   * with {@link LinkUnavailable} when the link is down or the query fails.
   */
  async fresh(): Promise<void> {
    if (this.#status.status !== "up") throw new LinkUnavailable(this.#status.reason);
    if (this.#o.clock.monotonic() - this.#lastSync < this.#t.minQueryIntervalMs) return;
    this.#query ??= this.#sync().finally(() => (this.#query = null));
    await this.#query;
  }

  async #sync(): Promise<void> {
    const client = this.#client;
    if (!client) throw new LinkUnavailable(this.#downReason());
    this.#counts.queries++;
    let reply;
    try {
      // The answer is applied in #receive, in wire order with the pushes around it.
      reply = await client.request({ type: "QueryRoomInfo" }, this.#t.queryTimeoutMs);
    } catch (error) {
      if (error instanceof ClientError && error.code === "timeout") {
        throw new LinkUnavailable(`the game server did not answer QueryRoomInfo within ${this.#t.queryTimeoutMs} ms`);
      }
      throw new LinkUnavailable(this.#downReason());
    }
    if (!reply.result.ok) throw new LinkUnavailable(`the game server refused QueryRoomInfo: ${reply.result.error}`);
  }

  #downReason(): string {
    return this.#status.status === "down" ? this.#status.reason : "the connection to the game server was lost";
  }

  async #loop(): Promise<void> {
    let backoff = this.#t.initialBackoffMs;
    while (!this.#stopped) {
      const wasUp = await this.#session();
      if (this.#stopped) break;
      if (wasUp) backoff = this.#t.initialBackoffMs;
      // Jitter (50-100 %) keeps several proxies from reconnecting in lock step.
      const delay = Math.round(backoff * (0.5 + this.#o.random.next() / 2));
      this.#o.log.info("reconnecting to the game server", { delay_ms: delay, reason: this.#downReason() });
      await this.#sleep(delay);
      backoff = Math.min(this.#t.maxBackoffMs, backoff * 2);
    }
  }

  /** One session from dial to close; true when it got as far as being up. */
  async #session(): Promise<boolean> {
    const { address, clock, log } = this.#o;
    const where = `${address.hostname}:${address.port}`;
    let client: PhiraClient;
    try {
      const conn = await this.#dial();
      client = new PhiraClient(conn, {
        clock,
        pingIntervalMs: this.#t.pingIntervalMs,
        eventBufferLimit: 0,
        logLimit: 0,
        onReceive: (cmd) => this.#receive(cmd),
      });
    } catch (error) {
      this.#down(`cannot connect to the game server at ${where}: ${describe(error)}`);
      return false;
    }
    if (this.#stopped) {
      // stop() ran while the connection was being made: it could not close this one.
      await client.close();
      return false;
    }
    this.#client = client;
    this.#counts.connects++;
    this.#lastPacket = clock.monotonic();
    let failure: string | null = null;
    this.#armWatchdog(client, (reason) => failure ??= reason);
    let up = false;
    try {
      const auth = await client.request({ type: "RoomMonitorAuthenticate", key: this.#o.key }, this.#t.authTimeoutMs);
      if (!auth.result.ok) {
        const hint = auth.result.error === "secret key mismatch"
          ? " (SERVICE_SECRET_KEY differs from the game server's service_secret_key)"
          : "";
        throw new LinkUnavailable(`the game server refused the room monitor: ${auth.result.error}${hint}`);
      }
      await this.#sync();
      this.#status = { status: "up", since: clock.now() };
      up = true;
      log.info("room monitor connected", { server: where, rooms: this.cache.size });
      await client.closed;
      failure ??= client.closeReason ? `lost the game server: ${client.closeReason.reason}` : "the link was closed";
    } catch (error) {
      failure ??= error instanceof LinkUnavailable ? error.message : `lost the game server: ${describe(error)}`;
    } finally {
      clock.clearTimeout(this.#watchdog);
      this.#client = null;
      await client.close();
    }
    this.#down(failure ?? "the link was closed");
    return up;
  }

  async #dial(): Promise<ByteConn> {
    const abort = new AbortController();
    this.#abort = abort;
    const timer = this.#o.clock.setTimeout(() => abort.abort(), this.#t.connectTimeoutMs);
    try {
      return await this.#dialer(this.#o.address, abort.signal);
    } catch (error) {
      throw abort.signal.aborted && !this.#stopped
        ? new Error(`no answer within ${this.#t.connectTimeoutMs} ms`, { cause: error })
        : error;
    } finally {
      this.#o.clock.clearTimeout(timer);
      this.#abort = null;
    }
  }

  #receive(cmd: ServerCommand): void {
    this.#lastPacket = this.#o.clock.monotonic();
    switch (cmd.type) {
      case "RoomResponse":
        if (!cmd.result.ok) return;
        this.#lastSync = this.#o.clock.monotonic();
        return this.#o.onEvents(this.cache.replace(cmd.result.value[0]));
      case "RoomEvent":
        this.#counts.events++;
        return this.#o.onEvents(this.cache.apply(cmd.event));
      case "UserVisit":
        this.#counts.visits++;
        return this.#o.onVisit(cmd.user);
      default:
        return;
    }
  }

  #armWatchdog(client: PhiraClient, onSilent: (reason: string) => void): void {
    const check = () => {
      const silent = this.#o.clock.monotonic() - this.#lastPacket;
      if (silent > this.#t.silenceLimitMs) {
        onSilent(`the game server stopped answering (nothing received for ${Math.round(silent)} ms)`);
        void client.close();
        return;
      }
      this.#watchdog = this.#o.clock.setTimeout(check, this.#t.pingIntervalMs);
    };
    this.#watchdog = this.#o.clock.setTimeout(check, this.#t.pingIntervalMs);
  }

  /** Records why the link is down; on the way down from up, forgets the picture and tells the owner. */
  #down(reason: string): void {
    const wasUp = this.#status.status === "up";
    this.#status = { status: "down", reason, since: wasUp ? this.#o.clock.now() : this.#status.since };
    this.#lastSync = -Infinity;
    this.cache.clear();
    if (!wasUp) return;
    if (this.#stopped) return this.#o.onDown("the proxy is stopping");
    this.#o.log.warn("room monitor link down", { reason });
    this.#o.onDown(reason);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#retry = null;
        resolve();
      };
      this.#retry = { timer: this.#o.clock.setTimeout(wake, ms), wake };
    });
  }
}

function describe(error: unknown): string {
  if (error instanceof ClientError) return error.reason;
  return error instanceof Error ? error.message : String(error);
}
