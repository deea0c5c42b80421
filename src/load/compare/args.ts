/**
 * Command line of `deno task bench-servers`: which servers to compare, which
 * phases to run and their sizes (issue 15 "Targets").
 *
 * @module
 */

import { UsageError } from "../args_spec.ts";

export { UsageError };

/** Servers the comparison knows. */
export const SERVER_KINDS = ["chorus", "chorus-pg", "tphira"] as const;
/** One server kind. */
export type ServerKind = (typeof SERVER_KINDS)[number];

/** Phases: start + idle sessions, relay at `--rooms`, relay at `--big-rooms`. */
export const PHASES = ["idle", "relay", "big"] as const;
/** One phase. */
export type Phase = (typeof PHASES)[number];

/** Parsed options. */
export interface CompareOptions {
  servers: ServerKind[];
  phases: Phase[];
  tphiraDir: string | null;
  node: string;
  databaseUrl: string | null;
  sessions: number;
  rampPerSec: number;
  hold: number;
  rooms: number;
  relayDuration: number;
  roundSecs: number;
  roomRamp: number;
  bigRooms: number;
  bigDuration: number;
  /** Seconds of setup allowed beyond the ramp before the window starts with the rooms ready. */
  setupGrace: number;
  settle: number;
  sampleInterval: number;
  clientProcs: number;
  bigClientProcs: number;
  json: string | null;
}

type Kind = "int" | "seconds" | "string" | "list";
interface Opt {
  readonly flag: string;
  readonly key: keyof CompareOptions;
  readonly kind: Kind;
  readonly min?: number;
  readonly max?: number;
  readonly help: string;
}

const OPTS: readonly Opt[] = [
  { flag: "--servers", key: "servers", kind: "list", help: "servers to run, in order (chorus, chorus-pg, tphira)" },
  { flag: "--phases", key: "phases", kind: "list", help: "phases to run (idle, relay, big)" },
  { flag: "--tphira-dir", key: "tphiraDir", kind: "string", help: "built tphira-mp checkout (dist/, locales/)" },
  { flag: "--node", key: "node", kind: "string", help: "Node.js executable for tphira-mp" },
  { flag: "--database-url", key: "databaseUrl", kind: "string", help: "PostgreSQL admin URL (chorus-pg)" },
  { flag: "--sessions", key: "sessions", kind: "int", min: 1, max: 28000, help: "idle sessions" },
  { flag: "--ramp-per-sec", key: "rampPerSec", kind: "int", min: 1, max: 100000, help: "new sessions per second" },
  { flag: "--hold", key: "hold", kind: "seconds", min: 0, max: 86400, help: "idle hold after the ramp" },
  { flag: "--rooms", key: "rooms", kind: "int", min: 1, max: 3000, help: "rooms of the relay phase" },
  { flag: "--relay-duration", key: "relayDuration", kind: "seconds", min: 0, max: 86400, help: "relay window" },
  { flag: "--round-secs", key: "roundSecs", kind: "seconds", min: 1, max: 3600, help: "play time per round" },
  { flag: "--room-ramp", key: "roomRamp", kind: "int", min: 1, max: 10000, help: "rooms set up per second" },
  { flag: "--big-rooms", key: "bigRooms", kind: "int", min: 1, max: 3000, help: "rooms of the big phase" },
  { flag: "--big-duration", key: "bigDuration", kind: "seconds", min: 0, max: 86400, help: "big-phase window" },
  {
    flag: "--setup-grace",
    key: "setupGrace",
    kind: "seconds",
    min: 1,
    max: 86400,
    help: "setup time beyond the ramp before the window starts anyway",
  },
  { flag: "--settle", key: "settle", kind: "seconds", min: 0, max: 600, help: "wait after start before RSS" },
  { flag: "--sample-interval", key: "sampleInterval", kind: "seconds", min: 0.1, max: 60, help: "/proc sampling" },
  { flag: "--client-procs", key: "clientProcs", kind: "int", min: 1, max: 16, help: "generator processes (relay)" },
  {
    flag: "--big-client-procs",
    key: "bigClientProcs",
    kind: "int",
    min: 1,
    max: 16,
    help: "generator processes (big)",
  },
  { flag: "--json", key: "json", kind: "string", help: "write every figure as JSON to this file" },
];

/** Defaults: the sizes (10,000 sessions, 300 rooms for 10 minutes, 1,000 rooms). */
export function defaultOptions(): CompareOptions {
  return {
    servers: ["chorus", "tphira"],
    phases: [...PHASES],
    tphiraDir: null,
    node: "node",
    databaseUrl: null,
    sessions: 10000,
    rampPerSec: 500,
    hold: 30,
    rooms: 300,
    relayDuration: 600,
    roundSecs: 30,
    roomRamp: 50,
    bigRooms: 1000,
    bigDuration: 60,
    setupGrace: 120,
    settle: 5,
    sampleInterval: 2,
    clientProcs: 1,
    bigClientProcs: 2,
    json: null,
  };
}

function parseSeconds(flag: string, raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw);
  if (!m) throw new UsageError(`Cannot parse ${flag}: "${raw}" is not a duration (e.g. 30, 90s, 3m)`);
  const n = Number(m[1]);
  return m[2] === "ms" ? n / 1000 : m[2] === "m" ? n * 60 : m[2] === "h" ? n * 3600 : n;
}

function parseList<T extends string>(flag: string, raw: string, allowed: readonly T[]): T[] {
  const items = raw.split(",").map((s) => s.trim()).filter(Boolean);
  const bad = items.filter((s) => !(allowed as readonly string[]).includes(s));
  if (!items.length || bad.length) {
    throw new UsageError(`Cannot parse ${flag}: "${raw}" (expected a list of ${allowed.join(", ")})`);
  }
  if (new Set(items).size !== items.length) throw new UsageError(`Cannot parse ${flag}: "${raw}" repeats an item`);
  return items as T[];
}

function convert(opt: Opt, raw: string): unknown {
  if (opt.kind === "string") {
    if (!raw) throw new UsageError(`Cannot parse ${opt.flag}: value is empty`);
    return raw;
  }
  if (opt.kind === "list") {
    return opt.key === "servers" ? parseList(opt.flag, raw, SERVER_KINDS) : parseList(opt.flag, raw, PHASES);
  }
  const n = opt.kind === "seconds" ? parseSeconds(opt.flag, raw) : /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new UsageError(`Cannot parse ${opt.flag}: "${raw}" is not an integer`);
  if ((opt.min !== undefined && n < opt.min) || (opt.max !== undefined && n > opt.max)) {
    throw new UsageError(`Cannot parse ${opt.flag}: ${raw} is outside ${opt.min}..${opt.max}`);
  }
  return n;
}

/** Parses the command line; null means help was asked for. Throws {@link UsageError}. */
export function parseCompareArgs(args: readonly string[]): CompareOptions | null {
  // `deno task bench-servers -- ...` passes the `--` through on Deno 2.9.
  const rest = args[0] === "--" ? args.slice(1) : args;
  const o = defaultOptions() as unknown as Record<string, unknown>;
  let serversGiven = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--help" || arg === "-h" || arg === "help") return null;
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const opt = OPTS.find((x) => x.flag === flag);
    if (!opt) throw new UsageError(`Unknown option: ${flag}`);
    const raw = eq > 0 ? arg.slice(eq + 1) : rest[++i];
    if (raw === undefined) throw new UsageError(`Cannot parse ${flag}: a value is missing`);
    o[opt.key] = convert(opt, raw);
    if (opt.key === "servers") serversGiven = true;
  }
  const options = o as unknown as CompareOptions;
  if (!serversGiven && options.databaseUrl !== null) options.servers = ["chorus", "chorus-pg", "tphira"];
  check(options);
  return options;
}

function check(o: CompareOptions): void {
  if (o.servers.includes("tphira") && o.tphiraDir === null) {
    throw new UsageError(
      "Cannot run tphira: --tphira-dir is missing (a built tphira-mp checkout), or drop it with --servers",
    );
  }
  if (o.servers.includes("chorus-pg") && o.databaseUrl === null) {
    throw new UsageError("Cannot run chorus-pg: --database-url is missing (postgres://user@host:port/db)");
  }
  if (o.databaseUrl !== null && !/^postgres(ql)?:\/\//.test(o.databaseUrl)) {
    throw new UsageError(`Cannot parse --database-url: "${o.databaseUrl}" is not a postgres:// URL`);
  }
  for (const [rooms, procs] of [[o.rooms, o.clientProcs], [o.bigRooms, o.bigClientProcs]] as const) {
    if (procs > rooms) throw new UsageError(`Cannot split ${rooms} rooms over ${procs} client processes`);
  }
}

/** The usage text. */
export function compareUsage(): string {
  const d = defaultOptions();
  const show = (o: Opt): string => {
    const v = d[o.key];
    const def = v === null ? "" : ` [${Array.isArray(v) ? v.join(",") : v}]`;
    return `  ${o.flag.padEnd(20)}${o.help}${def}`;
  };
  return [
    "Usage: deno task bench-servers [options]",
    "",
    "Runs Chorus and tphira-mp side by side, one server at a time, with the same load generator",
    "(src/load, in its own processes) and the same development upstream, and prints the tables of",
    "issue 15: RSS after start, idle sessions (RSS, KiB per session, ping p99), relay at --rooms and",
    "--big-rooms rooms × (8 players + 1 monitor) with server CPU, relay p99 and RSS over the run.",
    "",
    ...OPTS.map(show),
    "",
    "Durations take s (default), ms, m or h suffixes. With --database-url, chorus-pg runs on a fresh",
    "database `chorus_bench` created next to the given one (dropped and recreated for each run).",
  ].join("\n");
}
