/**
 * What the HTTP service is built from ({@link HttpDeps}) and the resolved
 * context every route module shares ({@link HttpContext}).
 *
 * @module
 */

import denoConfig from "../../deno.json" with { type: "json" };
import type { Config } from "../config/mod.ts";
import type { EventBus } from "../events/mod.ts";
import type { ServerOps } from "../ops/mod.ts";
import type { GameServer, ServerCore } from "../server/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { AdminAuth } from "./admin_auth.ts";
import type { HubRenderer } from "./hub.ts";
import type { MetricsSource } from "./routes_metrics.ts";
import type { RouteRegistry } from "./route_registry.ts";
import type { StreamTracker } from "./sse.ts";
import type { WsUpgrades } from "./ws_upgrade.ts";
import type { SseRegistry } from "./sse_registry.ts";
import { programFile } from "../util/program_files.ts";

/** Server version reported in `ready` events. */
export const VERSION: string = denoConfig.version;

/** The configuration keys the HTTP service reads. */
export type HttpConfig = Pick<
  Config,
  "profile" | "server_name" | "admin_password" | "monitors" | "auth_budget_ms" | "heartbeat_timeout"
>;

/** Tuning of the HTTP service; every field has a default. */
export interface HttpOptions {
  /** Origins allowed cross-origin on the public API; empty (default) = same origin only; `*` = any. */
  corsOrigins?: readonly string[];
  /** Events buffered per stream before the oldest are dropped (default 256). */
  streamCapacity?: number;
  /** Open SSE and WebSocket streams at most (default 1024). */
  maxStreams?: number;
  /** Open `/ws/live` viewers at most (default 256). */
  maxLiveViewers?: number;
  /** Largest request body, bytes (default 64 KiB). */
  maxBodyBytes?: number;
  /** Keep-alive interval of SSE streams, ms (default 15 s, spec 1 §8). */
  keepAliveMs?: number;
  /** Bytes a WebSocket may have unsent before events are dropped for it (default 1 MiB). */
  wsBufferLimit?: number;
  /** Directory of the admin page files (default `static/admin/` of this checkout). */
  adminStaticDir?: URL;
}

/** Readiness as `/health/ready` reports it. */
export interface HealthStatus {
  readonly ready: boolean;
  /** Why not ready (e.g. `store unreachable: records wait in the journal`). */
  readonly issues: readonly string[];
  /** More to show in the probe's body whatever the answer (the plugin host's states). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Everything the HTTP service needs. */
export interface HttpDeps {
  readonly server: GameServer;
  readonly config: HttpConfig;
  /** Defaults to the game server's logger. */
  readonly log?: Logger;
  /** Readiness source (the app's, `src/app_health.ts`); default: ready unless the game server is shutting down. */
  readonly health?: () => HealthStatus;
  readonly options?: HttpOptions;
  /** Shared registries (the plugin host registers into them); created when absent. */
  readonly routes?: RouteRegistry;
  readonly streams?: SseRegistry;
  /** The process's operations (the admin panel's actions); made over `server` when absent. */
  readonly ops?: ServerOps;
  /** Prometheus metrics for `GET /metrics`; the route is absent without them. */
  readonly metrics?: MetricsSource;
  /** `GET /chart/{id}[.json]` (the chart service, `src/app_charts.ts`); absent: no `/chart/*` routes. */
  readonly chart?: ((req: Request) => Promise<Response>) | null | undefined;
}

/** Hono environment: the client address as the listener resolved it. */
export type HttpEnv = {
  Bindings: {
    /** Client IP (from `X-Forwarded-For` on the trusted listener). */
    readonly ip: string;
    /** True when the client reached us over https (trusted `X-Forwarded-Proto`). */
    readonly secure?: boolean;
  };
};

/** The client address of a request ("unknown" when called without one, as some in-process callers do). */
export function clientIp(env: HttpEnv["Bindings"] | undefined): string {
  return env?.ip ?? "unknown";
}

/** The resolved context shared by route modules. */
export interface HttpContext {
  readonly server: GameServer;
  readonly core: ServerCore;
  /** The operations the admin panel calls. */
  readonly ops: ServerOps;
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: HttpConfig;
  readonly options: Required<HttpOptions>;
  readonly routes: RouteRegistry;
  readonly streams: SseRegistry;
  readonly tracker: StreamTracker;
  /** Serializes each event once for all streams. */
  readonly hub: HubRenderer;
  readonly adminAuth: AdminAuth;
  readonly health: () => HealthStatus;
  /** Open `/ws/live` viewers. */
  readonly live: StreamTracker;
  /** WebSocket upgrades routes ask the listener for (with their message limits). */
  readonly upgrades: WsUpgrades;
}

/** Defaults of {@link HttpOptions}. */
export function resolveOptions(o: HttpOptions = {}): Required<HttpOptions> {
  return {
    corsOrigins: o.corsOrigins ?? [],
    streamCapacity: o.streamCapacity ?? 256,
    maxStreams: o.maxStreams ?? 1024,
    maxLiveViewers: o.maxLiveViewers ?? 256,
    maxBodyBytes: o.maxBodyBytes ?? 64 * 1024,
    keepAliveMs: o.keepAliveMs ?? 15_000,
    wsBufferLimit: o.wsBufferLimit ?? 1024 * 1024,
    adminStaticDir: o.adminStaticDir ?? programFile("static/admin/"),
  };
}
