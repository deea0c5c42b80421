/**
 * A running monitor proxy: keys derived from the shared secret, the
 * visited-user store opened and migrated, the room-monitor link started,
 * the HTTP application served. {@link startProxy} builds everything from
 * checked options; tests inject a clock, the game API's `fetch`, a dialer.
 *
 * @module
 */

import { migrate, openDb } from "../db/mod.ts";
import { jsonError } from "../http/errors.ts";
import { type Front, startFront } from "../http/node_front.ts";
import { spectatorFiles } from "../http/spectator_page.ts";
import { WsUpgrades } from "../http/ws_upgrade.ts";
import { deriveKeys } from "../net/mod.ts";
import { type FetchLike, Upstream } from "../upstream/mod.ts";
import { type Clock, SystemClock } from "../util/clock.ts";
import { type Logger, LogHub } from "../util/log.ts";
import { type Random, systemRandom } from "../util/random.ts";
import { type ChartHandler, createProxyApp } from "./app.ts";
import { ProxyAuth } from "./auth.ts";
import { Fanout, type FanoutOptions } from "./fanout.ts";
import { chartServiceHandler } from "./charts.ts";
import { LiveViewers } from "./live.ts";
import type { ProxyOptions } from "./options.ts";
import { type Dialer, RoomLink, type RoomLinkTiming } from "./room_link.ts";
import { SessionTokens } from "./session_token.ts";
import { PROXY_MIGRATIONS, VisitStore } from "./visits.ts";

/** What the chart service gets to build its handler (the lead wires the real one). */
export interface ChartContext {
  readonly cacheDir: string;
  readonly upstream: Upstream;
  readonly clock: Clock;
  readonly log: Logger;
}

/** Injected parts; all optional. */
export interface ProxyDeps {
  readonly clock?: Clock;
  readonly random?: Random;
  /** Where logs go (default: stdout at the options' level). */
  readonly logs?: LogHub;
  /** The game API's transport (default: `fetch`). */
  readonly fetch?: FetchLike;
  /** How to reach the game server (default: TCP). */
  readonly dialer?: Dialer;
  readonly timing?: RoomLinkTiming;
  readonly fanout?: Omit<FanoutOptions, "clock">;
  /** Spectators at once (default 256). */
  readonly maxViewers?: number;
  /** Builds the `/chart/*` handler (default: the chart service of `src/chart/`, cached in `--cache-dir`). */
  readonly chart?: (context: ChartContext) => ChartHandler;
  /** Directory of the spectator page (default `static/spectator/`). */
  readonly pageDir?: URL;
}

/** A running proxy. */
export interface ProxyService {
  /** The bound port. */
  readonly port: number;
  /** `http://<host>:<port>` as bound (loopback name for a wildcard address). */
  readonly url: string;
  readonly link: RoomLink;
  readonly fanout: Fanout;
  readonly visits: VisitStore;
  readonly live: LiveViewers;
  /** Calls the application in process. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Ends streams and spectators, stops listening, closes the link and the store. */
  close(): Promise<void>;
}

/** Key derivation infos (extended.md §5.2; `proxy_session` is ours, for sealing game tokens). */
export const KEY_INFOS = { roomMonitor: "room_monitor", jwt: "jwt", seal: "proxy_session" } as const;

/** Starts the proxy; rejects when the store cannot be opened or the port cannot be bound. */
export async function startProxy(options: ProxyOptions, deps: ProxyDeps = {}): Promise<ProxyService> {
  const clock = deps.clock ?? new SystemClock();
  const logs = deps.logs ?? new LogHub({ level: options.logLevel, now: () => clock.now() });
  const log = logs.logger({ component: "proxy" });
  // extended.md §5.2: one shared secret, a key per purpose.
  const [monitorKey, sign, seal] = (await deriveKeys(options.secret, [
    { info: KEY_INFOS.roomMonitor, length: 64 },
    { info: KEY_INFOS.jwt, length: 64 },
    { info: KEY_INFOS.seal, length: 32 },
  ])) as [Uint8Array, Uint8Array, Uint8Array];
  const db = await openDb({ url: options.databaseUrl, dataDir: options.dataDir, file: "proxy.sqlite" });
  let server: Front | null = null;
  let link: RoomLink | null = null;
  try {
    await migrate(db, "proxy", PROXY_MIGRATIONS);
    const visits = new VisitStore({ db, clock, log });
    const fanout = new Fanout({ clock, ...deps.fanout });
    link = new RoomLink({
      address: options.mpServer,
      key: monitorKey,
      clock,
      random: deps.random ?? systemRandom,
      log,
      ...(deps.dialer ? { dialer: deps.dialer } : {}),
      ...(deps.timing ? { timing: deps.timing } : {}),
      onEvents: (events) => fanout.publish(events),
      onVisit: (user) => visits.add(user),
      // The picture is gone: streams end (clients reconnect and get 503 with the reason until it is back).
      onDown: () => fanout.endAll(),
    });
    const upstream = new Upstream({ baseUrl: options.apiBase, clock, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
    const auth = new ProxyAuth({ upstream, tokens: new SessionTokens({ sign, seal }, clock), clock, log });
    // The listener upgrades WebSockets itself, so that a spectator's oversized message is refused as it arrives.
    const upgrades = new WsUpgrades(clock);
    const live = new LiveViewers({
      address: options.mpServer,
      auth,
      clock,
      log,
      upgrades,
      ...(deps.dialer ? { dialer: deps.dialer } : {}),
      ...(deps.maxViewers !== undefined ? { limit: deps.maxViewers } : {}),
    });
    const app = createProxyApp({
      rooms: link,
      fanout,
      visits,
      auth,
      live,
      cors: { debug: options.debug, origins: options.allowedOrigins },
      page: spectatorFiles(log, deps.pageDir),
      log,
      chart: (deps.chart ?? chartServiceHandler)({ cacheDir: options.cacheDir, upstream, clock, log }),
    });
    server = await startFront({
      hostname: options.host,
      port: options.port,
      fetch: (req) => app.fetch(req),
      env: (peer) => ({ ip: peer }),
      upgrades,
      onError: (error) => {
        log.error("HTTP request failed", { error: String(error) });
        return jsonError(500, "internal error");
      },
    });
    link.start();
    const port = server.port;
    const shown = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
    log.info("monitor proxy listening", {
      address: options.host,
      port,
      mp_server: `${options.mpServer.hostname}:${options.mpServer.port}`,
      api_base: options.apiBase,
      origins: options.debug ? "any (--debug)" : options.allowedOrigins.join(","),
      store: db.dialect,
    });
    if (options.debug) log.warn("DEBUG MODE: any web page may call this proxy with its visitors' credentials");
    const started = server;
    const linkRef = link;
    let closing: Promise<void> | null = null;
    return {
      port,
      url: `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`,
      link,
      fanout,
      visits,
      live,
      request: (path, init) => Promise.resolve(app.request(path, init)),
      close: () =>
        closing ??= (async () => {
          fanout.closeAll();
          await live.closeAll();
          await started.close();
          await linkRef.stop();
          await visits.stop();
          await db.close();
          log.info("monitor proxy stopped");
        })(),
    };
  } catch (error) {
    await server?.close();
    await link?.stop();
    await db.close();
    throw error;
  }
}
