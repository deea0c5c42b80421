/**
 * The paths the built-in routes answer, for the plugin registries: a plugin
 * route or stream that a built-in would always answer first could never be
 * reached, so registering it is refused (spec 1 §4.3 rule 1; `docs/http.md`
 * "Plugin extension points"). Keep this list in step with the route modules.
 *
 * @module
 */

/**
 * Built-in GET routes, `:p` = one path segment, a trailing `/**` = one or
 * more segments. `/api/rooms/listen` is not listed: it is itself a
 * registered stream a plugin may replace (rule 3), see {@link BASIC_STREAM_RESERVED}.
 */
export const BUILTIN_ROUTES: readonly string[] = [
  "/health/live",
  "/health/ready",
  "/api/rooms/info",
  "/api/rooms/info/:name",
  "/api/rooms/user/:id",
  "/api/events",
  "/rooms/listen",
  "/api/ws",
  "/api/rooms",
  "/api/rooms/:name",
  "/api/user_name/:id",
  "/api/players/count",
  "/api/players/all",
  "/ws/live",
  "/admin",
  "/admin/**",
];

/** The profile R stream path: a built-in for plugin routes, a replaceable entry for plugin streams. */
export const BASIC_STREAM_RESERVED = "/api/rooms/listen";

/**
 * Values a built-in parameter never takes because an earlier route answers
 * them (the `info` / `listen` collision rule of `docs/http.md`).
 */
const EARLIER: Readonly<Record<string, readonly string[]>> = {
  "/api/rooms/:name": ["info", "listen"],
};

function covers(builtin: string, pattern: string): boolean {
  const b = builtin.slice(1).split("/");
  const p = pattern.slice(1).split("/");
  if (b.at(-1) === "**") {
    const prefix = b.slice(0, -1);
    return p.length > prefix.length && prefix.every((seg, i) => seg === p[i]);
  }
  if (b.length !== p.length) return false;
  // A built-in parameter answers any segment; a built-in literal only the same literal (never a plugin parameter).
  const taken = EARLIER[builtin] ?? [];
  return b.every((seg, i) => (seg.startsWith(":") ? !taken.includes(p[i] ?? "") : seg === p[i]));
}

/**
 * The built-in route that answers every path `pattern` (normalized, `:p`
 * parameters) can match, or null when at least some of them reach plugins.
 */
export function shadowingBuiltin(pattern: string, builtins: readonly string[] = BUILTIN_ROUTES): string | null {
  return builtins.find((b) => covers(b, pattern)) ?? null;
}
