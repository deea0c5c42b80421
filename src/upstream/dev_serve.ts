/**
 * Serving the development upstream over real HTTP (`deno task dev`, socket tests).
 *
 * @module
 */

import { createDevApi, type DevApi, type DevApiOptions } from "./dev_api.ts";

/** Options of {@link serveDevApi}. */
export interface ServeDevApiOptions extends DevApiOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  hostname?: string;
  /** Serve this instance instead of creating one from the other options. */
  api?: DevApi;
}

/** A running development upstream. */
export interface DevApiServer {
  /** Base URL, for example `http://127.0.0.1:41234` (a wildcard bind is reported as loopback). */
  readonly url: string;
  /** The API being served. */
  readonly api: DevApi;
  /** Stops listening and waits for open requests to finish. */
  close(): Promise<void>;
}

/** Starts the development upstream with `Deno.serve` (its listen message silenced). */
export function serveDevApi(o: ServeDevApiOptions = {}): DevApiServer {
  const api = o.api ?? createDevApi(o);
  const hostname = o.hostname ?? "127.0.0.1";
  const server = Deno.serve({ port: o.port ?? 0, hostname, onListen: () => {} }, (req) => api.app.fetch(req));
  const port = server.addr.port;
  const host = hostname === "0.0.0.0"
    ? "127.0.0.1"
    : hostname === "::"
    ? "[::1]"
    : hostname.includes(":")
    ? `[${hostname}]`
    : hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    api,
    close: () => (closing ??= server.shutdown()),
  };
}
