/**
 * The HTTP port (spec 1 profiles R and S, spec 2 §4.2 admin panel): room
 * JSON, SSE and WebSocket event streams, the `/ws/live` spectator bridge,
 * health probes, the admin panel and the plugin route and stream
 * registries. See `docs/http.md` for every route and event.
 *
 * @example Usage
 * ```ts ignore
 * import { listenOptionsOf, startHttp } from "./mod.ts";
 * const listen = listenOptionsOf(config);
 * const http = listen ? startHttp({ server, config }, listen) : null;
 * // ... later
 * await http?.close();
 * ```
 *
 * @module
 */

export { adminPasswordProblem, createHttpApp, type HttpApp } from "./app.ts";
export { type HttpService, type ListenOptions, listenOptionsOf, startHttp } from "./serve.ts";
export type { HealthStatus, HttpConfig, HttpDeps, HttpEnv, HttpOptions } from "./context.ts";
export {
  normalizeRoutePath,
  type PluginReply,
  type PluginRequest,
  type PluginRoute,
  type PluginRouteHandler,
  RouteRegistry,
} from "./route_registry.ts";
export { BASIC_STREAM_PATH, registerBasicStream } from "./routes_streams.ts";
export {
  type KeepAliveStyle,
  type SseInput,
  type SseOutput,
  SseRegistry,
  type SseStreamSpec,
  type SseTranslate,
} from "./sse_registry.ts";
export { HUB_EVENT_NAMES, type HubEvent, hubEvent, type HubEventName } from "./hub.ts";
export { decodeLiveEvent, encodeWsCommand, LiveEvent, WsCommand } from "./live_protocol.ts";
export { type ErrorBody } from "./errors.ts";
export type { MetricsSource } from "./routes_metrics.ts";
export { ADMIN_LOGIN_LIMITS } from "./admin_auth.ts";
