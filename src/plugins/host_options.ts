/**
 * What the plugin host is built from, and its fixed bounds (spec 3 §8).
 *
 * @module
 */

import type { Config } from "../config/mod.ts";
import type { EventBus } from "../events/mod.ts";
import type { RouteRegistry, SseRegistry } from "../http/mod.ts";
import type { ServerOps } from "../ops/mod.ts";
import type { ServerCore } from "../server/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { ConsoleCommands } from "./registration_types.ts";

/** How long loading a plugin (process start, instantiation) may take; not counted against `init_timeout_ms`. */
export const LOAD_TIMEOUT_MS = 30_000;
/** Longest compile of one component. */
export const COMPILE_TIMEOUT_MS = 120_000;
/** V8 heap of a plugin child (MiB): the generated glue and message buffers; guest memory is `max_memory_mb`. */
export const CHILD_HEAP_MB = 128;
/** Wall-clock time a call may spend in host functions on top of its own budget. */
export const HOST_TIME_MS = 30_000;

/** What the host is built from. */
export interface PluginHostOptions {
  readonly pluginsDir: string;
  /** `<data_dir>/plugins`: configurations, files, extension data. */
  readonly dataDir: string;
  /** Compile cache root (`wasm_runtime.cache_dir`, default `<data_dir>/plugin-cache`). */
  readonly cacheDir: string;
  readonly limits: Config["wasm_runtime"];
  /** `service_secret_key` (the node key); null = crypto signing unavailable. */
  readonly secret: string | null;
  readonly ops: ServerOps;
  readonly bus: EventBus;
  readonly core: ServerCore;
  readonly routes: RouteRegistry;
  readonly streams: SseRegistry;
  /** Where handlers become console commands; null = operations only. */
  readonly commands?: ConsoleCommands | null;
  readonly clock: Clock;
  readonly log: Logger;
  /** Environment of child processes (PATH, HOME, DENO_DIR); default: those of this process. */
  readonly env?: Readonly<Record<string, string>>;
  /** Called when a plugin stops running (disabled, failed, removed): what it declared elsewhere goes. */
  readonly onPluginStopped?: (id: string) => void;
}

/** Variables the plugin children inherit; everything else is cleared. */
const CHILD_ENV_KEYS = [
  "PATH",
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "TMPDIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NODE_EXTRA_CA_CERTS",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "NPM_CONFIG_REGISTRY",
] as const;

/** The environment of child processes: `env` when given, else PATH, HOME, the Deno cache locations and the TLS/proxy settings of this process. */
export function childEnv(env?: Readonly<Record<string, string>>): Record<string, string> {
  if (env) return { ...env };
  const out: Record<string, string> = {};
  // The TLS and proxy settings too: the compile child fetches npm packages on first use, and behind a
  // proxy with its own certificate authority (NODE_EXTRA_CA_CERTS, DENO_CERT) it could not reach the registry.
  for (const key of CHILD_ENV_KEYS) {
    const v = Deno.env.get(key);
    if (v !== undefined) out[key] = v;
  }
  return out;
}
