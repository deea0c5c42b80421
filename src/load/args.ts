/**
 * Command line of the load generator: `load <scenario> [options] [-- <server flags>]`,
 * parsed and documented from the option tables of `args_spec.ts`.
 *
 * @module
 */

import { COMMON, I32, type LoadOptions, type Opt, type Scenario, SCENARIOS, TABLES, UsageError } from "./args_spec.ts";

export * from "./args_spec.ts";

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
    throw new UsageError(`Cannot parse ${opt.flag}: ${raw} is outside ${opt.min ?? "-\u221e"}..${opt.max ?? "\u221e"}`);
  }
  return n;
}

/** Parses `<scenario> [options] [-- server flags]`; null means help was asked for. Throws {@link UsageError}. */
export function parseLoadArgs(args: readonly string[]): LoadOptions | null {
  // `deno task load -- <scenario>` passes the `--` through on Deno 2.9 (issue 8): a leading one separates nothing.
  const [scenario, ...rest] = args[0] === "--" ? args.slice(1) : args;
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
  for (
    const [flag, v] of [["--cpu-prof", o.cpuProf], ["--server-v8-flags", o.serverV8Flags], [
      "--server-env",
      o.serverEnv,
    ]]
  ) {
    if (v !== null && !o.spawn) throw new UsageError(`Cannot use ${flag}: it needs --spawn`);
  }
  if (o.serverEnv !== null && !/^[A-Za-z_][A-Za-z0-9_]*=[^,]*(,[A-Za-z_][A-Za-z0-9_]*=[^,]*)*$/.test(o.serverEnv)) {
    throw new UsageError(`Cannot parse --server-env: "${o.serverEnv}" (expected K=V[,K=V])`);
  }
  if (o.serverArgs.length && !o.spawn) throw new UsageError("Cannot pass server flags after --: they need --spawn");
  if (o.scenario === "http") {
    if (!o.path.startsWith("/")) throw new UsageError(`Cannot parse --path: "${o.path}" (expected a path from /)`);
    const lastPlayer = o.idBase + o.rooms * o.players - 1;
    if (o.rooms && lastPlayer > 999999) {
      throw new UsageError(`Cannot use ids up to ${lastPlayer}: development records need player ids \u2264 999999`);
    }
  }
  if (o.scenario === "rooms") {
    const lastPlayer = o.idBase + o.rooms * o.players - 1;
    // Development records exist for players 1..999999 (src/upstream dev_records.ts).
    if (lastPlayer > 999999) {
      throw new UsageError(`Cannot use ids up to ${lastPlayer}: development records need player ids \u2264 999999`);
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
    "  http       N concurrent GET workers on one path (/api/rooms by default) for a duration, optionally",
    "             with R background rooms × P players in a round; requests/s, latency, status counts",
    "",
    "Common options:",
    ...optionLines(COMMON),
    ...SCENARIOS.flatMap((s) => ["", `${s}:`, ...optionLines(TABLES[s])]),
    "",
    "Durations take s (default), ms, m or h suffixes.",
  ].join("\n");
}
