/**
 * Command line of the load generator: `load <scenario> [options] [-- <server flags>]`.
 * One table per scenario declares each option's flag, type, default, bounds
 * and help line; the parser and the usage text are both built from it.
 *
 * @module
 */

/** Scenario names. */
export const SCENARIOS = ["sessions", "rooms", "logins", "sse"] as const;
/** One scenario name. */
export type Scenario = (typeof SCENARIOS)[number];

/** A bad command line; the message says what and the CLI prints usage. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Options every scenario takes. */
export interface CommonOptions {
  host: string;
  port: number;
  spawn: boolean;
  upstream: string | null;
  serverPid: number | null;
  json: string | null;
  progress: boolean;
  cpuProf: string | null;
  /** Extra flags for the spawned server (everything after `--`). */
  serverArgs: string[];
}

/** `sessions`: ramp to N authenticated idle sessions that ping. */
export interface SessionsOptions extends CommonOptions {
  scenario: "sessions";
  sessions: number;
  rampPerSec: number;
  duration: number;
  pingInterval: number;
  idBase: number;
  maxInflight: number;
}

/** `rooms`: R rooms × P players (+ a monitor each) playing rounds with telemetry. */
export interface RoomsOptions extends CommonOptions {
  scenario: "rooms";
  rooms: number;
  players: number;
  monitor: boolean;
  roundSecs: number;
  duration: number;
  fingers: number;
  notesPerSec: number;
  chart: number;
  idBase: number;
  monitorBase: number;
  rampPerSec: number;
  pingInterval: number;
  maxInflight: number;
}

/** `logins`: login throughput with a cold and a warm authentication cache. */
export interface LoginsOptions extends CommonOptions {
  scenario: "logins";
  count: number;
  duration: number;
  concurrency: number;
  warmUsers: number;
  idBase: number | null;
  phases: string;
}

/** `sse`: N event-stream subscribers while a client creates rooms at a fixed rate. */
export interface SseOptions extends CommonOptions {
  scenario: "sse";
  subscribers: number;
  eventsPerSec: number;
  duration: number;
  httpPort: number;
  path: string;
  idBase: number;
}

/** Parsed options of one scenario. */
export type LoadOptions = SessionsOptions | RoomsOptions | LoginsOptions | SseOptions;

type Kind = "string" | "int" | "number" | "bool" | "seconds";
interface Opt {
  readonly flag: string;
  readonly key: string;
  readonly kind: Kind;
  readonly def: string | number | boolean | null;
  readonly min?: number;
  readonly max?: number;
  readonly help: string;
}

const I32 = 2147483647;

const COMMON: readonly Opt[] = [
  { flag: "--host", key: "host", kind: "string", def: "127.0.0.1", help: "server address" },
  { flag: "--port", key: "port", kind: "int", def: 12346, min: 1, max: 65535, help: "server game port" },
  {
    flag: "--spawn",
    key: "spawn",
    kind: "bool",
    def: false,
    help: "start our server as a child process on a free port",
  },
  { flag: "--upstream", key: "upstream", kind: "string", def: null, help: "upstream URL (default: start the dev one)" },
  {
    flag: "--server-pid",
    key: "serverPid",
    kind: "int",
    def: null,
    min: 1,
    max: I32,
    help: "sample this pid's RSS/CPU",
  },
  { flag: "--json", key: "json", kind: "string", def: null, help: "write the JSON report to this file" },
  { flag: "--no-progress", key: "progress", kind: "bool", def: true, help: "no progress bar" },
  { flag: "--cpu-prof", key: "cpuProf", kind: "string", def: null, help: "with --spawn: server CPU profile dir" },
];

const SESSIONS: readonly Opt[] = [
  { flag: "--sessions", key: "sessions", kind: "int", def: 1000, min: 1, max: 28000, help: "sessions to open" },
  { flag: "--ramp-per-sec", key: "rampPerSec", kind: "number", def: 500, min: 1, max: 1e6, help: "new sessions/s" },
  { flag: "--duration", key: "duration", kind: "seconds", def: 30, min: 0, max: 86400, help: "hold time after ramp" },
  { flag: "--ping-interval", key: "pingInterval", kind: "seconds", def: 3, min: 0.1, max: 60, help: "ping period" },
  { flag: "--id-base", key: "idBase", kind: "int", def: 200000, min: 1, max: I32, help: "first user id" },
  { flag: "--max-inflight", key: "maxInflight", kind: "int", def: 128, min: 1, max: 10000, help: "logins at once" },
];

const ROOMS: readonly Opt[] = [
  { flag: "--rooms", key: "rooms", kind: "int", def: 10, min: 1, max: 3000, help: "rooms" },
  { flag: "--players", key: "players", kind: "int", def: 8, min: 1, max: 100, help: "players per room" },
  { flag: "--no-monitor", key: "monitor", kind: "bool", def: true, help: "no monitor (no telemetry relay)" },
  { flag: "--round-secs", key: "roundSecs", kind: "seconds", def: 20, min: 0, max: 3600, help: "play time per round" },
  {
    flag: "--duration",
    key: "duration",
    kind: "seconds",
    def: 60,
    min: 0,
    max: 86400,
    help: "steady time after setup",
  },
  { flag: "--fingers", key: "fingers", kind: "int", def: 2, min: 0, max: 10, help: "moving fingers per player" },
  { flag: "--notes-per-sec", key: "notesPerSec", kind: "number", def: 16, min: 0, max: 1000, help: "judge rate" },
  { flag: "--chart", key: "chart", kind: "int", def: 7, min: 1, max: I32, help: "chart id" },
  { flag: "--id-base", key: "idBase", kind: "int", def: 100000, min: 1, max: 999999, help: "first player id" },
  { flag: "--monitor-base", key: "monitorBase", kind: "int", def: 900000, min: 1, max: I32, help: "first monitor id" },
  { flag: "--ramp-per-sec", key: "rampPerSec", kind: "number", def: 50, min: 0.1, max: 1e5, help: "rooms set up/s" },
  { flag: "--ping-interval", key: "pingInterval", kind: "seconds", def: 3, min: 0.1, max: 60, help: "ping period" },
  { flag: "--max-inflight", key: "maxInflight", kind: "int", def: 64, min: 1, max: 10000, help: "logins at once" },
];

const LOGINS: readonly Opt[] = [
  { flag: "--count", key: "count", kind: "int", def: 5000, min: 1, max: 1e7, help: "logins per phase" },
  { flag: "--duration", key: "duration", kind: "seconds", def: 20, min: 0.1, max: 86400, help: "time cap per phase" },
  { flag: "--concurrency", key: "concurrency", kind: "int", def: 32, min: 1, max: 10000, help: "logins at once" },
  { flag: "--warm-users", key: "warmUsers", kind: "int", def: 1000, min: 1, max: 4096, help: "users in warm phase" },
  { flag: "--id-base", key: "idBase", kind: "int", def: null, min: 1, max: I32, help: "first id (default random)" },
  { flag: "--phases", key: "phases", kind: "string", def: "cold,warm", help: "phases to run, in order" },
];

const SSE: readonly Opt[] = [
  { flag: "--subscribers", key: "subscribers", kind: "int", def: 1000, min: 1, max: 20000, help: "SSE subscribers" },
  { flag: "--events-per-sec", key: "eventsPerSec", kind: "number", def: 10, min: 0.1, max: 1000, help: "rooms made/s" },
  { flag: "--duration", key: "duration", kind: "seconds", def: 30, min: 0.1, max: 86400, help: "event window" },
  { flag: "--http-port", key: "httpPort", kind: "int", def: 12347, min: 1, max: 65535, help: "server HTTP port" },
  { flag: "--path", key: "path", kind: "string", def: "/api/events", help: "event stream path" },
  { flag: "--id-base", key: "idBase", kind: "int", def: 800000, min: 1, max: I32, help: "user id of the room maker" },
];

const TABLES: Record<Scenario, readonly Opt[]> = { sessions: SESSIONS, rooms: ROOMS, logins: LOGINS, sse: SSE };

function parseSeconds(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "ms" ? n / 1000 : m[2] === "m" ? n * 60 : m[2] === "h" ? n * 3600 : n;
}

function convert(opt: Opt, raw: string): string | number {
  if (opt.kind === "string") {
    if (!raw) throw new UsageError(`Cannot parse ${opt.flag}: value is empty`);
    return raw;
  }
  const n = opt.kind === "seconds" ? parseSeconds(raw) : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new UsageError(`Cannot parse ${opt.flag}: "${raw}" is not a number`);
  if (opt.kind === "int" && !Number.isInteger(n)) {
    throw new UsageError(`Cannot parse ${opt.flag}: "${raw}" is not an integer`);
  }
  if ((opt.min !== undefined && n < opt.min) || (opt.max !== undefined && n > opt.max)) {
    throw new UsageError(`Cannot parse ${opt.flag}: ${raw} is outside ${opt.min ?? "-∞"}..${opt.max ?? "∞"}`);
  }
  return n;
}

/** Parses `<scenario> [options] [-- server flags]`; null means help was asked for. Throws {@link UsageError}. */
export function parseLoadArgs(args: readonly string[]): LoadOptions | null {
  const [scenario, ...rest] = args;
  if (scenario === undefined || scenario === "help" || scenario === "--help" || scenario === "-h") return null;
  if (!(SCENARIOS as readonly string[]).includes(scenario)) {
    throw new UsageError(`Unknown scenario: "${scenario}" (expected ${SCENARIOS.join(", ")})`);
  }
  const table = [...COMMON, ...TABLES[scenario as Scenario]];
  const values: Record<string, unknown> = { scenario, serverArgs: [] };
  for (const opt of table) values[opt.key] = opt.def;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--") {
      values.serverArgs = rest.slice(i + 1);
      break;
    }
    if (arg === "--help" || arg === "-h") return null;
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const opt = table.find((o) => o.flag === flag);
    if (!opt) throw new UsageError(`Unknown option for ${scenario}: ${flag}`);
    if (opt.kind === "bool") {
      if (eq > 0) throw new UsageError(`Cannot parse ${flag}: it takes no value`);
      values[opt.key] = !opt.def;
      continue;
    }
    const raw = eq > 0 ? arg.slice(eq + 1) : rest[++i];
    if (raw === undefined) throw new UsageError(`Cannot parse ${flag}: a value is missing`);
    values[opt.key] = convert(opt, raw);
  }
  const options = values as unknown as LoadOptions;
  check(options);
  return options;
}

function check(o: LoadOptions): void {
  if (o.cpuProf !== null && !o.spawn) throw new UsageError("Cannot use --cpu-prof: it needs --spawn");
  if (o.serverArgs.length && !o.spawn) throw new UsageError("Cannot pass server flags after --: they need --spawn");
  if (o.scenario === "rooms") {
    const lastPlayer = o.idBase + o.rooms * o.players - 1;
    // Development records exist for players 1..999999 (src/upstream dev_records.ts).
    if (lastPlayer > 999999) {
      throw new UsageError(`Cannot use ids up to ${lastPlayer}: development records need player ids ≤ 999999`);
    }
    if (o.monitorBase + o.rooms - 1 > I32) throw new UsageError("Cannot use --monitor-base: ids exceed i32");
    if (o.monitor && o.monitorBase <= lastPlayer && o.monitorBase + o.rooms > o.idBase) {
      throw new UsageError("Cannot use --monitor-base: monitor ids overlap player ids");
    }
  }
  if (o.scenario === "logins") {
    const phases = o.phases.split(",");
    if (!phases.length || phases.some((p) => p !== "cold" && p !== "warm")) {
      throw new UsageError(`Cannot parse --phases: "${o.phases}" (expected a list of cold, warm)`);
    }
  }
  if (o.scenario === "sessions" && o.idBase + o.sessions - 1 > I32) {
    throw new UsageError("Cannot use --id-base: ids exceed i32");
  }
}

function optionLines(table: readonly Opt[]): string[] {
  return table.map((o) => {
    const value = o.kind === "bool" ? "" : ` <${o.kind === "seconds" ? "s" : o.kind === "string" ? "x" : "n"}>`;
    const def = o.kind === "bool" || o.def === null ? "" : ` [${o.def}]`;
    return `    ${(o.flag + value).padEnd(26)}${o.help}${def}`;
  });
}

/** The usage text. */
export function loadUsage(): string {
  return [
    "Usage: chorus load <scenario> [options] [-- <flags for the spawned server>]",
    "",
    "Drives real TCP clients against a Phira-compatible server and prints a table and a JSON report.",
    "Tokens are development-upstream tokens: the server must use the development upstream this command",
    "starts (printed at start) or the one given with --upstream. Ctrl-C stops early and still reports.",
    "",
    "Scenarios:",
    "  sessions   ramp to N authenticated sessions pinging every 3 s; ping RTT and server memory",
    "  rooms      R rooms × P players + one monitor each playing full rounds with telemetry at the",
    "             official client's rates; relay rate and latency, command round trips, errors",
    "             (monitor ids monitor-base.. must be allowed to spectate: config `monitors`)",
    "  logins     logins per second with a cold and with a warm authentication cache",
    "  sse        N subscribers on the HTTP event stream while rooms are created at a fixed rate;",
    "             delivery latency from CreateRoom to each subscriber's create_room event",
    "",
    "Common options:",
    ...optionLines(COMMON),
    ...SCENARIOS.flatMap((s) => ["", `${s}:`, ...optionLines(TABLES[s])]),
    "",
    "Durations take s (default), ms, m or h suffixes.",
  ].join("\n");
}
