/**
 * Option types and tables of the load generator's command line: one table
 * per scenario declares each option's flag, type, default, bounds and help
 * line; `args.ts` builds the parser and the usage text from them.
 *
 * @module
 */

/** Scenario names. */
export const SCENARIOS = ["sessions", "rooms", "logins", "sse", "http"] as const;
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
  serverV8Flags: string | null;
  serverEnv: string | null;
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
  /** Seconds setup may take before the steady window starts with the rooms ready by then (0: no limit). */
  setupLimit: number;
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

/** `http`: N concurrent workers requesting one HTTP path for a duration, optionally with idle rooms around. */
export interface HttpOptions extends CommonOptions {
  scenario: "http";
  connections: number;
  duration: number;
  httpPort: number;
  path: string;
  timeout: number;
  /** Background rooms (0: none), each with `players` players in a round without telemetry. */
  rooms: number;
  players: number;
  idBase: number;
}

/** Parsed options of one scenario. */
export type LoadOptions = SessionsOptions | RoomsOptions | LoginsOptions | SseOptions | HttpOptions;

/** Value type of an option. */
export type Kind = "string" | "int" | "number" | "bool" | "seconds";
/** One option of a table. */
export interface Opt {
  readonly flag: string;
  readonly key: string;
  readonly kind: Kind;
  readonly def: string | number | boolean | null;
  readonly min?: number;
  readonly max?: number;
  readonly help: string;
}

/** Largest i32 (user ids). */
export const I32 = 2147483647;

/** Options of every scenario. */
export const COMMON: readonly Opt[] = [
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
  { flag: "--server-v8-flags", key: "serverV8Flags", kind: "string", def: null, help: "with --spawn: V8 flags" },
  { flag: "--server-env", key: "serverEnv", kind: "string", def: null, help: "with --spawn: K=V[,K=V] env" },
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
  {
    flag: "--setup-limit",
    key: "setupLimit",
    kind: "seconds",
    def: 0,
    min: 0,
    max: 86400,
    help: "give up unfinished setups after this (0: wait for all)",
  },
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

const HTTP: readonly Opt[] = [
  { flag: "--connections", key: "connections", kind: "int", def: 50, min: 1, max: 10000, help: "requests at once" },
  { flag: "--duration", key: "duration", kind: "seconds", def: 10, min: 0.1, max: 86400, help: "request window" },
  { flag: "--http-port", key: "httpPort", kind: "int", def: 12347, min: 1, max: 65535, help: "server HTTP port" },
  { flag: "--path", key: "path", kind: "string", def: "/api/rooms", help: "path to request (GET)" },
  { flag: "--timeout", key: "timeout", kind: "seconds", def: 5, min: 0.01, max: 600, help: "per-request timeout" },
  { flag: "--rooms", key: "rooms", kind: "int", def: 0, min: 0, max: 3000, help: "background rooms, playing" },
  { flag: "--players", key: "players", kind: "int", def: 8, min: 1, max: 100, help: "players per background room" },
  { flag: "--id-base", key: "idBase", kind: "int", def: 100000, min: 1, max: 999999, help: "first player id" },
];

/** Scenario options by scenario. */
export const TABLES: Record<Scenario, readonly Opt[]> = {
  sessions: SESSIONS,
  rooms: ROOMS,
  logins: LOGINS,
  sse: SSE,
  http: HTTP,
};
