/**
 * The routes Lua plugins register (`phira.register_http_route(method, path,
 * handler)`): exact method and path, as in the original. The server's own
 * routes (`/room`, `/stats`, `/replay/...`, `/admin/...`) cannot be taken, nor
 * can one plugin take another's. The table exists before the HTTP server
 * starts and outlives reloads, so routes registered at start-up work (in the
 * original they only appeared after a reload).
 *
 * @module
 */

import type { PluginRouteTable } from "../lua/host_types.ts";

/** Methods a plugin route may use. */
export const ROUTE_METHODS: ReadonlySet<string> = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/** A registered route. */
export interface PluginRouteEntry {
  readonly pluginId: string;
  readonly method: string;
  readonly path: string;
  /** The handler's key in the plugin's state. */
  readonly key: string;
}

/** Paths the server serves itself. */
export function isServerPath(path: string): boolean {
  return path === "/room" || path === "/stats" || path.startsWith("/replay/") || path === "/replay" ||
    path.startsWith("/admin/") || path === "/admin";
}

/** The plugin route table. */
export class PluginRoutes implements PluginRouteTable {
  readonly #routes = new Map<string, PluginRouteEntry>();

  register(pluginId: string, method: string, path: string, key: string): boolean {
    const m = method.toUpperCase();
    if (!ROUTE_METHODS.has(m)) return false;
    if (!/^\/[\x21-\x7e]{0,255}$/.test(path) || path.includes("?") || path.includes("#")) return false;
    if (isServerPath(path)) return false;
    const id = `${m} ${path}`;
    const taken = this.#routes.get(id);
    if (taken && taken.pluginId !== pluginId) return false;
    this.#routes.set(id, { pluginId, method: m, path, key });
    return true;
  }

  removeOwner(pluginId: string): void {
    for (const [id, route] of this.#routes) if (route.pluginId === pluginId) this.#routes.delete(id);
  }

  /** The route for a request, or undefined. */
  match(method: string, path: string): PluginRouteEntry | undefined {
    return this.#routes.get(`${method.toUpperCase()} ${path}`);
  }

  /** True when some route has this path (with another method: 405 rather than 404). */
  hasPath(path: string): boolean {
    for (const r of this.#routes.values()) if (r.path === path) return true;
    return false;
  }

  /** Every route, by path. */
  list(): PluginRouteEntry[] {
    return [...this.#routes.values()].sort((
      a,
      b,
    ) => (a.path === b.path ? (a.method < b.method ? -1 : 1) : a.path < b.path ? -1 : 1));
  }
}
