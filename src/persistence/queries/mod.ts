/**
 * Reading the store (spec 3 §4.2, §4.5, §4.6): the queries of the console,
 * HTTP, OpenUDS and plugins, their row shapes, and what startup loads.
 *
 * @module
 */

export * from "./queries.ts";
export * from "./rows.ts";
export { loadAuthCache, loadBans, loadSettings } from "./loaders.ts";
