/**
 * What a newcomer needs once the server is up (issue 13): where Phira
 * clients connect, the HTTP address, the admin panel's URL or why it is off
 * and the one line that turns it on, the data directory, and how to stop.
 * Pure: `app.ts` gathers the facts and logs the lines.
 *
 * @module
 */

import type { Config } from "./config/mod.ts";

/** What the summary is made from. */
export interface StartupFacts {
  readonly config: Pick<Config, "profile" | "bind_address" | "http_bind_address" | "data_dir" | "database_url">;
  readonly version: string;
  readonly pid: number;
  /** The game port actually bound. */
  readonly gamePort: number;
  /** The HTTP port actually bound, or null when HTTP is off (`http_port: 0`). */
  readonly httpPort: number | null;
  /** Why the admin panel is off or unsafe (`admin_password is not set`), or null when it is protected. */
  readonly adminProblem: string | null;
  /** Whether a password is set at all (a weak one still opens the panel). */
  readonly adminPasswordSet: boolean;
  /** The data directory as an absolute path. */
  readonly dataDir: string;
  /** The configuration file read, or null. */
  readonly configFile: string | null;
  /** This machine's non-loopback addresses, most useful first (may be empty when unknown). */
  readonly addresses: readonly string[];
}

const WILDCARDS = new Set(["::", "0.0.0.0", "[::]", ""]);

/** `host:port`, with brackets for IPv6. */
function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The host others should use to reach a listener bound to `bind`. */
function reachableHosts(bind: string, addresses: readonly string[]): { shown: string[]; local: string | null } {
  if (!WILDCARDS.has(bind)) return { shown: [bind], local: null };
  const ipv4Only = bind === "0.0.0.0";
  const candidates = addresses.filter((a) => !ipv4Only || !a.includes(":")).slice(0, 2);
  return { shown: candidates.length ? candidates : ["127.0.0.1"], local: candidates.length ? "127.0.0.1" : null };
}

/** The start-up summary, one log line each. */
export function startupSummary(f: StartupFacts): string[] {
  const game = reachableHosts(f.config.bind_address, f.addresses);
  const gameAt = game.shown.map((h) => hostPort(h, f.gamePort)).join(" or ");
  const lines = [
    `Chorus ${f.version} is ready (profile ${f.config.profile}, pid ${f.pid})`,
    `  Phira clients connect to ${gameAt}${game.local ? ` (${hostPort(game.local, f.gamePort)} on this machine)` : ""}`,
  ];
  if (f.httpPort === null) {
    lines.push("  HTTP is off (http_port: 0): no room API, spectator or admin panel");
  } else {
    const http = reachableHosts(f.config.http_bind_address, f.addresses);
    const base = `http://${hostPort(http.shown[0] ?? "127.0.0.1", f.httpPort)}`;
    lines.push(`  HTTP API and pages: ${base}/`);
    if (!f.adminPasswordSet) {
      lines.push(
        `  admin panel: off, ${f.adminProblem ?? "admin_password is not set"}. To turn it on, write ` +
          `admin_password: "<a long password>" in ${f.configFile ?? "server_config.yml"} (or set PM_ADMIN_PASSWORD)`,
      );
    } else {
      lines.push(`  admin panel: ${base}/admin${f.adminProblem ? ` (unsafe: ${f.adminProblem}; change it)` : ""}`);
    }
  }
  const store = f.config.database_url
    ? "the journal; the database is PostgreSQL (database_url)"
    : "the embedded database and the journal";
  lines.push(`  data directory: ${f.dataDir} (${store})`);
  lines.push(
    `  configuration: ${f.configFile ?? "defaults (no server_config.yml found)"}; stop with Ctrl-C or SIGTERM`,
  );
  return lines;
}

/** This machine's non-loopback, non-link-local addresses (IPv4 first), or none when they cannot be read. */
export function machineAddresses(): string[] {
  let interfaces: Deno.NetworkInterfaceInfo[];
  try {
    interfaces = Deno.networkInterfaces();
  } catch {
    return []; // No --allow-sys: the summary falls back to 127.0.0.1.
  }
  const usable = interfaces.filter((i) =>
    !i.address.startsWith("127.") && i.address !== "::1" && !i.address.toLowerCase().startsWith("fe80:")
  );
  const v4 = usable.filter((i) => i.family === "IPv4").map((i) => i.address);
  const v6 = usable.filter((i) => i.family === "IPv6").map((i) => i.address);
  return [...new Set([...v4, ...v6])];
}
