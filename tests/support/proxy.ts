/**
 * The monitor proxy on loopback in front of a test game server: the
 * scenario harness (ManualClock, development upstream in process) with its
 * `service_secret_key` set, and a proxy sharing the clock and the
 * development upstream, its store in a fresh temporary directory.
 *
 * @module
 */

import { type ProxyDeps, type ProxyOptions, type ProxyService, startProxy } from "../../src/proxy/mod.ts";
import { memoryLogHub } from "../../src/util/log.ts";
import { SeededRandom } from "../../src/util/random.ts";
import { waitUntil } from "./describe.ts";
import { type Harness, type HarnessOptions, startHarness } from "./harness.ts";

/** The secret the test game server and proxy share (long enough for production rules). */
export const PROXY_SECRET = "proxy-test-secret-0123456789";
/** The origin the test proxy allows. */
export const ALLOWED_ORIGIN = "https://monitor.example.org";

/** A game server harness plus a proxy. */
export interface ProxyHarness extends Harness {
  readonly proxy: ProxyService;
  readonly options: ProxyOptions;
  /** `http://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** Fetches `path` from the proxy over HTTP and parses a JSON body. */
  json(path: string, init?: RequestInit): Promise<{ status: number; body: unknown; headers: Headers }>;
  /** Resolves once the room-monitor link is up. */
  linkUp(): Promise<void>;
}

/** Options of {@link startProxyHarness}. */
export interface ProxyHarnessOptions extends HarnessOptions {
  readonly proxy?: Partial<ProxyOptions>;
  readonly deps?: ProxyDeps;
  /** Wait for the room-monitor link to come up (default true). */
  readonly waitForLink?: boolean;
}

/** The proxy options of a test, pointed at `gamePort`. */
export function testProxyOptions(gamePort: number, dataDir: string, more: Partial<ProxyOptions> = {}): ProxyOptions {
  return {
    debug: false,
    host: "127.0.0.1",
    port: 0,
    mpServer: { hostname: "127.0.0.1", port: gamePort },
    apiBase: "http://dev.upstream",
    allowedOrigins: [ALLOWED_ORIGIN],
    cacheDir: `${dataDir}/cache`,
    dataDir,
    databaseUrl: undefined,
    logLevel: "error",
    secret: PROXY_SECRET,
    ...more,
  };
}

/** Starts a game server and a proxy in front of it; the link is up when this resolves (unless told not to wait). */
export async function startProxyHarness(o: ProxyHarnessOptions = {}): Promise<ProxyHarness> {
  const h = await startHarness({ ...o, config: { service_secret_key: PROXY_SECRET, ...o.config } });
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-proxy-test-" });
  const options = testProxyOptions(h.port, dataDir, o.proxy);
  let proxy: ProxyService;
  try {
    proxy = await startProxy(options, {
      clock: h.clock,
      random: new SeededRandom(3),
      logs: Deno.env.get("CHORUS_TEST_LOG") ? undefined : memoryLogHub("debug"),
      fetch: h.dev.fetch,
      ...o.deps,
    } as ProxyDeps);
  } catch (error) {
    await h.close();
    await Deno.remove(dataDir, { recursive: true });
    throw error;
  }
  const url = proxy.url;
  const linkUp = () => waitUntil(() => proxy.link.status.status === "up", "room-monitor link up");
  if (o.waitForLink !== false) await linkUp();
  const close = h.close;
  return {
    ...h,
    proxy,
    options,
    url,
    linkUp,
    async json(path, init) {
      const res = await fetch(url + path, init);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    async close(closeOptions) {
      await proxy.close();
      await close(closeOptions);
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}
