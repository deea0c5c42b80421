/**
 * The paths the built-in routes answer, for the plugin registries: a plugin
 * route or stream that a built-in would always answer first could never be
 * reached, so registering it is refused (spec 1 §4.3 rule 1; `docs/http.md`
 * "Plugin extension points"). The list is read from the application itself
 * ({@link builtinRoutesOf}) once its routes are registered, so it cannot
 * drift from the route modules.
 *
 * @module
 */

import type { Hono } from "hono";

/** The profile R stream path: a built-in for plugin routes, a replaceable entry for plugin streams (rule 3). */
export const BASIC_STREAM_RESERVED = "/api/rooms/listen";

/**
 * Built-in routes in matching order: `:p` = one path segment, a trailing
 * `/**` = one or more segments. A parameter never takes a value an earlier
 * literal route answers (`/api/rooms/:name` is not `/api/rooms/info`, the
 * `info` / `listen` collision rule of `docs/http.md`).
 */
export class BuiltinRoutes {
  /** The patterns a plugin may not shadow, in matching order. */
  readonly patterns: readonly string[];
  /** Every registered pattern, those left out by {@link without} included. */
  readonly #all: readonly string[];
  /** Per pattern: segment values its parameters never take. */
  readonly #taken = new Map<string, Set<string>>();

  /** `patterns` in matching order; `excluded` ones stay out of {@link shadowing} but still take their values. */
  constructor(patterns: readonly string[], excluded: readonly string[] = []) {
    this.#all = [...new Set(patterns)];
    this.patterns = this.#all.filter((p) => !excluded.includes(p));
    this.#all.forEach((b, i) => {
      const segs = b.slice(1).split("/");
      for (const earlier of this.#all.slice(0, i)) {
        const e = earlier.slice(1).split("/");
        if (e.length !== segs.length) continue;
        const diff = segs.findIndex((s, j) => s !== e[j]);
        if (diff === -1 || !segs[diff]!.startsWith(":") || e[diff]!.startsWith(":")) continue;
        if (segs.every((s, j) => j === diff || s === e[j])) {
          this.#taken.set(b, (this.#taken.get(b) ?? new Set()).add(e[diff]!));
        }
      }
    });
  }

  /** The same routes with `patterns` left out (a plugin may replace those). */
  without(...patterns: string[]): BuiltinRoutes {
    return new BuiltinRoutes(this.#all, [...this.#all.filter((p) => !this.patterns.includes(p)), ...patterns]);
  }

  /**
   * The built-in route that answers every path `pattern` (normalized, `:p`
   * parameters) can match, or null when at least some of them reach plugins.
   */
  shadowing(pattern: string): string | null {
    return this.patterns.find((b) => this.#covers(b, pattern)) ?? null;
  }

  #covers(builtin: string, pattern: string): boolean {
    const b = builtin.slice(1).split("/");
    const p = pattern.slice(1).split("/");
    if (b.at(-1) === "**") {
      const prefix = b.slice(0, -1);
      return p.length > prefix.length && prefix.every((seg, i) => seg === p[i]);
    }
    if (b.length !== p.length) return false;
    // A built-in parameter answers any segment; a built-in literal only the same literal (never a plugin parameter).
    const taken = this.#taken.get(builtin);
    return b.every((seg, i) => (seg.startsWith(":") ? !taken?.has(p[i] ?? "") : seg === p[i]));
  }
}

/** No built-in routes: a registry that refuses nothing (a plugin host's own listener). */
export const NO_BUILTINS: BuiltinRoutes = new BuiltinRoutes([]);

/**
 * The built-in routes of `app` as registered so far: every route with a
 * method (middleware and the plugin catch-all are registered for `ALL`),
 * Hono's `*` written `**`.
 */
export function builtinRoutesOf(app: Hono<never>): BuiltinRoutes {
  const patterns = app.routes
    .filter((r) => r.method !== "ALL")
    .map((r) => (r.path.endsWith("/*") ? `${r.path.slice(0, -1)}**` : r.path));
  return new BuiltinRoutes(patterns);
}
