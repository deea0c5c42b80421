/**
 * The monitor proxy (spec 1 profile P; extended.md §5): one room-monitor
 * session to a Phira game server (this project's or any speaking the
 * monitor protocol), room JSON and the `/rooms/listen` stream for browsers,
 * visited users, logins through the game API with the proxy's own session
 * tokens, `/ws/live` spectating with a game-monitor session per browser, and
 * the spectator page. Run it with `chorus proxy` (`deno task proxy`); see
 * `docs/proxy.md`.
 *
 * @example Usage
 * ```ts ignore
 * import { parseProxyArgs, startProxy } from "./mod.ts";
 * const parsed = parseProxyArgs(["--debug"], (name) => Deno.env.get(name));
 * if (parsed.kind === "run") {
 *   const proxy = await startProxy(parsed.options);
 *   // ... later
 *   await proxy.close();
 * }
 * ```
 *
 * @module
 */

export { type ChartHandler, type CorsPolicy, createProxyApp, type ProxyAppDeps, type RoomSource } from "./app.ts";
export { type ProfileJson, profileJson, ProxyAuth, type ProxyAuthOptions } from "./auth.ts";
export { runProxy } from "./cli.ts";
export { Fanout, type FanoutOptions, frame, SSE_HEADERS } from "./fanout.ts";
export { LiveViewers, type LiveViewersOptions } from "./live.ts";
export {
  DEFAULT_MP_PORT,
  type ParsedProxyArgs,
  parseOrigin,
  parseProxyArgs,
  parseServerAddress,
  PROXY_USAGE,
  type ProxyOptions,
} from "./options.ts";
export { RoomCache, type RoomInfoJson, type RoomListJson, type RoomStreamEvent } from "./room_cache.ts";
export {
  type Dialer,
  type LinkCounts,
  type LinkStatus,
  LinkUnavailable,
  RoomLink,
  type RoomLinkOptions,
  type RoomLinkTiming,
  type ServerAddress,
  tcpDialer,
} from "./room_link.ts";
export { type ChartContext, KEY_INFOS, type ProxyDeps, type ProxyService, startProxy } from "./service.ts";
export { parseExpiry, type SessionKeys, SessionTokens, TokenError, type TokenSession } from "./session_token.ts";
export { TtlCache } from "./ttl_cache.ts";
export { PROXY_MIGRATIONS, VisitStore, type VisitStoreOptions } from "./visits.ts";
