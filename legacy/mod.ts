/**
 * Legacy mode (`chorus legacy`, spec 3 §1.5, §4.3, §4.7, §4.8): the game
 * server configured by the legacy keys, with Lua plugins through fengari,
 * the HTTP API on 61234 (rooms, stats, admin token and one-time codes,
 * replays) and the legacy console. For operators moving from the lua-cpp or
 * tphira servers: docs/legacy-migration.md.
 *
 * @module
 */

import type { LoadedConfig } from "../src/config/mod.ts";
import type { StartOptions } from "../src/app.ts";
import { attachLegacy } from "./app.ts";
import { createLegacyRegistry } from "./console_registry.ts";

export {
  attachLegacy,
  BANNER,
  BUILTIN_PLUGINS_DIR,
  type LegacyMode,
  type LegacyOptions,
  type LegacyParts,
} from "./app.ts";
export { MemorySettings, type SettingsStore } from "./state/settings.ts";
export { createLegacyRegistry, LegacyRegistry } from "./console_registry.ts";

/** `http_port` of legacy mode when no source sets it (spec 3 §2.3). */
export const LEGACY_HTTP_PORT = 61234;

/** The configuration with legacy mode's defaults: `http_port` 61234 unless the file, environment or a flag set it. */
export function withLegacyDefaults(loaded: LoadedConfig): LoadedConfig {
  if (loaded.sources.get("http_port")?.kind !== "default") return loaded;
  return { ...loaded, config: { ...loaded.config, http_port: LEGACY_HTTP_PORT } };
}

/** What legacy mode changes in the game server's start-up. */
export function legacyMode(): Pick<StartOptions, "http" | "wasmPlugins" | "registry" | "attach"> {
  // plugins_dir holds Lua plugins here: the WebAssembly host stays off.
  return { http: false, wasmPlugins: false, registry: createLegacyRegistry, attach: (parts) => attachLegacy(parts) };
}
