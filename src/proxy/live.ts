/**
 * `/ws/live` of the proxy (extended.md §5.6): each browser gets its own TCP
 * session to the game server, logged in with `GameMonitorAuthenticate` and
 * the game account token sealed in its session token; the bridge
 * (`src/http/live_bridge.ts`, shared with the game server's own `/ws/live`)
 * turns browser commands into protocol commands and the session's traffic
 * into `LiveEvent` frames. Whether the account may spectate is the game
 * server's decision (its `monitors` list).
 *
 * The token comes as `?token=` (a browser cannot set headers on a
 * WebSocket) or an `Authorization` header; refusals happen before the
 * upgrade, as JSON. At most `limit` viewers at once. Browser messages over
 * {@link MAX_COMMAND_BYTES} are refused as they arrive (close 1009): the
 * upgrade goes through the `node:http` listener and the `ws` library
 * (`src/http/ws_upgrade.ts`, issue 14), not `Deno.upgradeWebSocket`, which
 * buffers whole messages of up to 64 MiB first.
 *
 * @module
 */

import { type ClientEvent, PhiraClient } from "../client/mod.ts";
import { jsonError } from "../http/errors.ts";
import { LiveBridge, MAX_COMMAND_BYTES, SessionUnavailable } from "../http/live_bridge.ts";
import { encodeLiveEvent } from "../http/live_protocol.ts";
import { StreamTracker } from "../http/sse.ts";
import { isUpgrade } from "../http/ws_events.ts";
import type { WsUpgrades } from "../http/ws_upgrade.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { ProxyAuth } from "./auth.ts";
import { type Dialer, type ServerAddress, tcpDialer } from "./dialer.ts";

/** Largest game token the protocol carries (`Varchar<32>`). */
const MAX_GAME_TOKEN_BYTES = 32;

/** Options of {@link LiveViewers}. */
export interface LiveViewersOptions {
  readonly address: ServerAddress;
  readonly auth: ProxyAuth;
  readonly clock: Clock;
  readonly log: Logger;
  /** The listener's upgrades (message limit enforced as frames arrive). */
  readonly upgrades: WsUpgrades;
  readonly dialer?: Dialer;
  /** Viewers at once (default 256). */
  readonly limit?: number;
  /** Unsent bytes per socket before touches and judges are dropped (default 1 MiB). */
  readonly wsBufferLimit?: number;
  /** Give up connecting to the game server after this long, ms (default 5000). */
  readonly connectTimeoutMs?: number;
}

/** The proxy's spectators. */
export class LiveViewers {
  readonly #o: LiveViewersOptions;
  readonly #tracker: StreamTracker;

  constructor(options: LiveViewersOptions) {
    this.#o = options;
    this.#tracker = new StreamTracker(options.limit ?? 256);
  }

  /** Viewers connected now. */
  get size(): number {
    return this.#tracker.size;
  }

  /** Answers `GET /ws/live`: an upgrade, or a JSON refusal. */
  async open(req: Request): Promise<Response> {
    if (!isUpgrade(req)) return jsonError(426, "expected a WebSocket upgrade");
    const session = await this.#o.auth.session(req, true);
    if (session instanceof Response) return session;
    if (new TextEncoder().encode(session.gameToken).length > MAX_GAME_TOKEN_BYTES) {
      return jsonError(400, "the game account token is longer than the game protocol allows (32 bytes)");
    }
    if (this.#tracker.size >= this.#tracker.limit) return jsonError(503, "too many spectators");
    return this.#o.upgrades.upgrade(req, MAX_COMMAND_BYTES, (socket) => {
      // Checked again: other viewers may have arrived during the handshake.
      if (this.#tracker.size >= this.#tracker.limit) {
        socket.onopen = () => {
          socket.send(encodeLiveEvent({ type: "Authenticate", result: { ok: false, error: "too many spectators" } }));
          socket.close(1013, "too many spectators");
        };
        return;
      }
      const bridge = new LiveBridge({
        socket,
        token: session.gameToken,
        open: (onEvent) => this.#connect(onEvent),
        wsBufferLimit: this.#o.wsBufferLimit ?? 1024 * 1024,
        onEnd: (b) => this.#tracker.delete(b),
        onLogin: () => this.#o.log.info("spectator connected", { user: session.id }),
      });
      this.#tracker.tryAdd(bridge);
    });
  }

  /** Ends every viewer (shutdown): each leaves its room and closes its session. */
  closeAll(): Promise<void> {
    return this.#tracker.closeAll();
  }

  async #connect(onEvent: (event: ClientEvent) => void): Promise<PhiraClient> {
    const { clock, address } = this.#o;
    const abort = new AbortController();
    const timer = clock.setTimeout(() => abort.abort(), this.#o.connectTimeoutMs ?? 5000);
    try {
      const conn = await (this.#o.dialer ?? tcpDialer)(address, abort.signal);
      return new PhiraClient(conn, { clock, eventBufferLimit: 0, logLimit: 0, onEvent });
    } catch (error) {
      this.#o.log.warn("spectator session cannot reach the game server", {
        server: `${address.hostname}:${address.port}`,
        error: error instanceof Error ? error.message : String(error),
      });
      throw new SessionUnavailable("game server unavailable");
    } finally {
      clock.clearTimeout(timer);
    }
  }
}
