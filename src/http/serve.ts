/**
 * Serving the HTTP application: a listener (`node_front.ts`: `node:http`,
 * so that WebSocket messages are limited as they arrive) on
 * `http_bind_address:http_port` and, when configured, a second listener on
 * `trusted_forwarded_http_port` that takes the client address from
 * `X-Forwarded-For` (spec 3 §2.3). Both serve the same application instance.
 *
 * @module
 */

import type { Config } from "../config/mod.ts";
import { normalizeIp } from "../server/mod.ts";
import { createHttpApp, type HttpApp } from "./app.ts";
import { forwardedFor, forwardedHttps } from "./client_ip.ts";
import type { HttpDeps, HttpEnv } from "./context.ts";
import { jsonError } from "./errors.ts";
import { type Front, startFront } from "./node_front.ts";

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

/** Starts the HTTP service on `listen`; resolves once it is bound. */
export async function startHttp(deps: HttpDeps, listen: ListenOptions): Promise<HttpService> {
  const http = createHttpApp(deps);
  const log = http.context.log;
  const onError = (error: unknown) => {
    log.error("HTTP request failed", { error: String(error) });
    return jsonError(500, "internal error");
  };
  const common = {
    hostname: listen.hostname,
    fetch: (req: Request, env: HttpEnv["Bindings"]) => http.app.fetch(req, env),
    upgrades: http.context.upgrades,
    onError,
  };
  const main = await startFront({ ...common, port: listen.port, env: (peer) => ({ ip: normalizeIp(peer) }) });
  log.info("HTTP listening", { address: listen.hostname, port: main.port });
  let trusted: Front | null = null;
  if (listen.trustedPort !== null) {
    try {
      trusted = await startFront({
        ...common,
        port: listen.trustedPort,
        env: (peer, headers) => ({
          ip: forwardedFor(headers.get("x-forwarded-for"), normalizeIp(peer)),
          secure: forwardedHttps(headers.get("x-forwarded-proto")),
        }),
      });
    } catch (error) {
      await main.close();
      throw error;
    }
    log.info("HTTP listening (trusts X-Forwarded-For)", { address: listen.hostname, port: trusted.port });
    const warning = trustedListenerWarning(listen.hostname, trusted.port);
    if (warning) log.warn(warning);
  }
  let closing: Promise<void> | null = null;
  return {
    http,
    port: main.port,
    trustedPort: trusted?.port ?? null,
    close: () =>
      closing ??= (async () => {
        await http.closeStreams();
        await Promise.all([main.close(), trusted?.close()]);
      })(),
  };
}
