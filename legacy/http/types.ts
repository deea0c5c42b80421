/**
 * The Hono environment of the legacy HTTP API: the client address (from the
 * socket, or `X-Forwarded-For` on the trusted listener) and the parsed JSON
 * body, set before the routes run.
 *
 * @module
 */

/** Bindings and variables of a request. */
export type LegacyEnv = {
  Bindings: { ip: string };
  Variables: { ip: string; body: unknown };
};
