/**
 * The WebAssembly plugin host (spec 3 §3.3, §4.6, §8; world
 * `phira-plugin-v3` in `wit/phira-plugin.wit`): each plugin is a component
 * compiled once into a cache and run in its own child process with the
 * fewest permissions, under call, init and memory limits, with its
 * capabilities checked on every host function. `docs/plugins.md` is the
 * author's guide.
 *
 * @example Attaching it to a server
 * ```ts ignore
 * const plugins = startPlugins({ pluginsDir, dataDir, cacheDir, limits: config.wasm_runtime, secret, ops, bus,
 *   core: server.core, routes, streams, clock, log });
 * // ...later
 * await plugins.stop();
 * ```
 *
 * @module
 */

export { type PluginSystem, startPlugins } from "./wiring.ts";
export { PluginHost } from "./host.ts";
export type { PluginHostOptions } from "./host_options.ts";
export type { PluginSummary } from "./host_views.ts";
export type { ConsoleCommands } from "./registration_types.ts";
export { type PluginState, STATE_LABELS } from "./state.ts";
export { PLUGIN_EVENT_KINDS, type PluginEventKind } from "./events.ts";
