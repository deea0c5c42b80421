/**
 * Routes registered by plugins at run time (spec 1 §4.3 rule 1): a path
 * without a leading `/` gets one; registering the same path again replaces
 * the handler (parameter names aside: `/a/:x` and `/a/{y}` are the same
 * path); lookups happen per request, so new routes work at once, with
 * no restart. Path parameters may be written `:p`, `{p}` or `<p>`
 * (extended.md §2.18); any method reaches the handler. A path a built-in
 * route answers in full (`/api/rooms/leaderboard` is `/api/rooms/:name`)
 * is refused: the route could never be reached.
 *
 * @module
 */

import { type BuiltinRoutes, NO_BUILTINS } from "./builtin_routes.ts";

/** What a plugin route handler receives. */
export interface PluginRequest {
  readonly method: string;
  /** The request path. */
  readonly path: string;
  /** The registered pattern (normalized). */
  readonly pattern: string;
  /** Path parameters in order. */
  readonly params: readonly string[];
  /** Path parameters by name. */
  readonly named: Readonly<Record<string, string>>;
  /** Query parameters (last value wins). */
  readonly query: Readonly<Record<string, string>>;
  /** Parsed JSON body, or undefined when none was sent. */
  readonly body: unknown;
}

/** What a plugin route handler answers: `ok` -> 200 JSON, `error` -> `status` (default 500) with `{error, code}`. */
export type PluginReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string; readonly status?: number };

/** A plugin route handler. Throwing answers 500 `handler failed`. */
export type PluginRouteHandler = (request: PluginRequest) => PluginReply | Promise<PluginReply>;

/** One registered route. */
export interface PluginRoute {
  readonly pattern: string;
  readonly owner: string;
  readonly handler: PluginRouteHandler;
}

/** A route matched against a path. */
export interface RouteMatch {
  readonly route: PluginRoute;
  readonly params: string[];
  readonly named: Record<string, string>;
}

type Segment = { readonly param: string } | { readonly literal: string };

interface Compiled extends PluginRoute {
  readonly segments: readonly Segment[];
  /** Literal segments count; more literals win over parameters. */
  readonly literals: number;
}

const PARAM = /^(?::([A-Za-z0-9_]+)|\{([A-Za-z0-9_]+)\}|<([A-Za-z0-9_]+)>)$/;

/**
 * Normalizes a registered path: leading `/` added, parameters written `:name`.
 * Throws a RangeError for an empty path, a query string or a bad segment.
 */
export function normalizeRoutePath(path: string): string {
  const trimmed = path.trim();
  if (trimmed === "" || trimmed === "/") throw new RangeError(`Cannot register route "${path}": the path is empty`);
  if (/[?#\s]/.test(trimmed)) {
    throw new RangeError(`Cannot register route "${path}": paths may not contain spaces, "?" or "#"`);
  }
  const withSlash = trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
  const parts = withSlash.slice(1).split("/").map((part) => {
    const m = PARAM.exec(part);
    if (m) return `:${m[1] ?? m[2] ?? m[3]}`;
    if (/[:{}<>]/.test(part)) throw new RangeError(`Cannot register route "${path}": bad segment "${part}"`);
    return part;
  });
  return `/${parts.join("/")}`;
}

/** Identity of a pattern: parameter names do not matter (`/a/:x` and `/a/{y}` are the same path). */
function routeKey(pattern: string): string {
  return pattern.replace(/:[A-Za-z0-9_]+/g, ":");
}

function compile(pattern: string, owner: string, handler: PluginRouteHandler): Compiled {
  const segments: Segment[] = pattern.slice(1).split("/").map((s) =>
    s.startsWith(":") ? { param: s.slice(1) } : { literal: s }
  );
  return { pattern, owner, handler, segments, literals: segments.filter((s) => "literal" in s).length };
}

/** The registry of plugin routes. */
export class RouteRegistry {
  readonly #routes = new Map<string, Compiled>();
  readonly #limit: number;
  #builtins: BuiltinRoutes;

  /**
   * At most `limit` routes (default 1024); `builtins` are the host's routes a
   * plugin may not shadow (the HTTP app sets them from its own routes).
   */
  constructor(limit = 1024, builtins: BuiltinRoutes = NO_BUILTINS) {
    this.#limit = limit;
    this.#builtins = builtins;
  }

  /**
   * Sets the host's routes (the HTTP app does, once its routes are
   * registered). Routes registered earlier that they shadow are removed and
   * returned: they could never be reached.
   */
  setBuiltins(builtins: BuiltinRoutes): string[] {
    this.#builtins = builtins;
    const dropped = [...this.#routes].filter(([, r]) => builtins.shadowing(r.pattern) !== null);
    for (const [key] of dropped) this.#routes.delete(key);
    return dropped.map(([, r]) => r.pattern);
  }

  /**
   * Registers (or replaces) a route; returns the normalized pattern. Throws a
   * RangeError when a built-in route answers every path the pattern matches.
   */
  register(path: string, handler: PluginRouteHandler, owner = "plugin"): string {
    const pattern = normalizeRoutePath(path);
    const builtin = this.#builtins.shadowing(pattern);
    if (builtin) {
      throw new RangeError(
        `Cannot register route "${pattern}": the built-in route "${builtin}" answers that path first`,
      );
    }
    const key = routeKey(pattern);
    if (!this.#routes.has(key) && this.#routes.size >= this.#limit) {
      throw new RangeError(`Cannot register route "${pattern}": the limit of ${this.#limit} routes is reached`);
    }
    // Delete first so a replaced route moves to the end of the matching order.
    this.#routes.delete(key);
    this.#routes.set(key, compile(pattern, owner, handler));
    return pattern;
  }

  /** Removes a route; false when it was not registered. */
  unregister(path: string): boolean {
    return this.#routes.delete(routeKey(normalizeRoutePath(path)));
  }

  /** Removes every route of `owner` (a plugin being unloaded); returns how many. */
  unregisterOwner(owner: string): number {
    let n = 0;
    for (const [key, route] of this.#routes) {
      if (route.owner === owner) {
        this.#routes.delete(key);
        n++;
      }
    }
    return n;
  }

  /** Registered routes. */
  list(): PluginRoute[] {
    return [...this.#routes.values()].map(({ pattern, owner, handler }) => ({ pattern, owner, handler }));
  }

  /** The best route for `path`: the exact pattern, else the match with the most literal segments. */
  match(path: string): RouteMatch | null {
    const parts = path.slice(1).split("/");
    let best: { route: Compiled; params: string[]; named: Record<string, string> } | null = null;
    for (const route of this.#routes.values()) {
      if (route.segments.length !== parts.length || (best && best.route.literals >= route.literals)) continue;
      const params: string[] = [];
      const named: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if ("literal" in seg) ok = seg.literal === part;
        else if (part === "") ok = false;
        else {
          const value = safeDecode(part);
          params.push(value);
          named[seg.param] = value;
        }
      }
      if (ok) best = { route, params, named };
    }
    return best ? { route: best.route, params: best.params, named: best.named } : null;
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
