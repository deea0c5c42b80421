/**
 * Serving the HTTP application: `Deno.serve` on `http_bind_address:http_port`
 * and, when configured, a second listener on `trusted_forwarded_http_port`
 * that takes the client address from `X-Forwarded-For` (spec 3 §2.3). Both
 * serve the same application instance.
 *
 * @module
 */

import type { Config } from "../config/mod.ts";
import { normalizeIp } from "../server/mod.ts";
import { createHttpApp, type HttpApp } from "./app.ts";
import { forwardedFor, forwardedHttps } from "./client_ip.ts";
import type { HttpDeps } from "./context.ts";
import { jsonError } from "./errors.ts";

/** Where to listen. */
export interface ListenOptions {
  readonly hostname: string;
  /** Main port (0 = any free port; used by tests). */
  readonly port: number;
  /** Port of the listener that trusts `X-Forwarded-For`; null = none. */
  readonly trustedPort: number | null;
}

/** A running HTTP service. */
export interface HttpService {
  readonly http: HttpApp;
  /** The bound main port. */
  readonly port: number;
  /** The bound trusted port, or null. */
  readonly trustedPort: number | null;
  /** Ends every stream, then stops both listeners. */
  close(): Promise<void>;
}

/** True for an address only this host can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * The warning to log when the trusted listener binds an address others can
 * reach: it believes `X-Forwarded-For` from anyone who connects, so a client
 * talking to it directly picks its own address (admin-login rate limit, IP
 * bans of `/ws/live`). Null on loopback.
 */
export function trustedListenerWarning(hostname: string, port: number): string | null {
  if (isLoopbackHost(hostname)) return null;
  return `TRUSTED HTTP LISTENER ON A NON-LOOPBACK ADDRESS: port ${port} on ${hostname} believes X-Forwarded-For ` +
    "from anyone who can connect; make it reachable by the reverse proxy only (firewall it, or bind " +
    "http_bind_address to 127.0.0.1 with the proxy on this host)";
}

/** The listen options a configuration asks for; null when `http_port` is 0 (HTTP off). */
export function listenOptionsOf(
  config: Pick<Config, "http_port" | "http_bind_address" | "trusted_forwarded_http_port">,
): ListenOptions | null {
  if (config.http_port === 0) return null;
  return {
    hostname: config.http_bind_address,
    port: config.http_port,
    trustedPort: config.trusted_forwarded_http_port,
  };
}

/** Starts the HTTP service on `listen`. */
export function startHttp(deps: HttpDeps, listen: ListenOptions): HttpService {
  const http = createHttpApp(deps);
  const log = http.context.log;
  const onError = (error: unknown) => {
    log.error("HTTP request failed", { error: String(error) });
    return jsonError(500, "internal error");
  };
  const peer = (info: Deno.ServeHandlerInfo<Deno.NetAddr>) => normalizeIp(info.remoteAddr.hostname);
  const main = Deno.serve(
    { hostname: listen.hostname, port: listen.port, onListen: () => {}, onError },
    (req, info) => http.app.fetch(req, { ip: peer(info) }),
  );
  log.info("HTTP listening", { address: listen.hostname, port: main.addr.port });
  let trusted: Deno.HttpServer<Deno.NetAddr> | null = null;
  if (listen.trustedPort !== null) {
    try {
      trusted = Deno.serve(
        { hostname: listen.hostname, port: listen.trustedPort, onListen: () => {}, onError },
        (req, info) =>
          http.app.fetch(req, {
            ip: forwardedFor(req.headers.get("x-forwarded-for"), peer(info)),
            secure: forwardedHttps(req.headers.get("x-forwarded-proto")),
          }),
      );
    } catch (error) {
      void main.shutdown();
      throw error;
    }
    log.info("HTTP listening (trusts X-Forwarded-For)", { address: listen.hostname, port: trusted.addr.port });
    const warning = trustedListenerWarning(listen.hostname, trusted.addr.port);
    if (warning) log.warn(warning);
  }
  let closing: Promise<void> | null = null;
  return {
    http,
    port: main.addr.port,
    trustedPort: trusted?.addr.port ?? null,
    close: () =>
      closing ??= (async () => {
        await http.closeStreams();
        await Promise.all([main.shutdown(), trusted?.shutdown()]);
      })(),
  };
}
