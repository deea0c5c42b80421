/**
 * A scenario harness with the operator console attached: the registry over
 * the harness's game server, a configuration read from an in-memory file
 * that tests can edit, and a record of shutdown requests.
 *
 * @module
 */

import { type ConsoleRegistry, createRegistry } from "../../src/console/mod.ts";
import { closeOps, createOps, type OpsDeps, type PersistenceQueries, type ServerOps } from "../../src/ops/mod.ts";
import { loadConfig, type LoadedConfig } from "../../src/config/mod.ts";
import { inGameConsole } from "../../src/server/mod.ts";
import { type Harness, type HarnessOptions, startHarness } from "./harness.ts";

/** A harness with a console registry. */
export interface ConsoleHarness {
  readonly h: Harness;
  /** The operations the registry's commands call. */
  readonly ops: ServerOps;
  readonly registry: ConsoleRegistry;
  /** Reasons passed to the shutdown callback. */
  readonly shutdowns: string[];
  /** The text of `server_config.yml` the next load reads. */
  file: string;
  /** Runs a console line and returns its output lines. */
  lines(line: string): Promise<string[]>;
  /** Runs a console line and returns the outcome. */
  run(line: string): ReturnType<ConsoleRegistry["run"]>;
  close(): Promise<void>;
}

/** Reads `text` as `server_config.yml`. */
export function loadFromText(text: string): Promise<LoadedConfig> {
  return loadConfig({ args: [], env: {}, cwd: "/srv", readTextFile: (p) => (p.endsWith(".yml") ? text : null) });
}

/** Base file: values the harness needs, so a reload does not change them. */
export const BASE_FILE = "monitors: [9, 10]\nheartbeat_timeout: 3600\nwelcome:\n  enabled: false\n";

/** Starts a harness and a registry; `deps` adds optional dependencies. */
export async function startConsoleHarness(
  options: HarnessOptions & { file?: string; deps?: Partial<OpsDeps> } = {},
): Promise<ConsoleHarness> {
  const state = { file: options.file ?? BASE_FILE };
  const initial = await loadFromText(state.file);
  const h = await startHarness({
    ...options,
    config: { ...initial.config, port: 0 as unknown as number, bind_address: "127.0.0.1", ...options.config },
  });
  const shutdowns: string[] = [];
  const ops = createOps({
    server: h.server,
    shutdown: (reason) => shutdowns.push(reason),
    logs: h.logs,
    config: { initial, load: () => loadFromText(state.file) },
    ...options.deps,
  });
  const registry = createRegistry(ops);
  h.server.commands.use(inGameConsole(registry));
  const ch: ConsoleHarness = {
    h,
    ops,
    registry,
    shutdowns,
    get file() {
      return state.file;
    },
    set file(text: string) {
      state.file = text;
    },
    lines: async (line) => (await registry.run(line, { kind: "console" })).lines,
    run: (line) => registry.run(line, { kind: "console" }),
    async close() {
      registry.close();
      closeOps(ops);
      await h.close();
    },
  };
  return ch;
}

/** A stand-in durable store: every query answers empty unless overridden. */
export function fakePersistence(
  o: Partial<Omit<PersistenceQueries, "queries">> & { queries?: Partial<PersistenceQueries["queries"]> } = {},
): PersistenceQueries {
  const { queries, ...top } = o;
  return {
    status: () => ({}),
    playtime: () => Promise.resolve(0),
    topPlaytime: () => Promise.resolve([]),
    walInspect: () => Promise.resolve({}),
    deadLetters: () => Promise.resolve([]),
    replayDeadLetters: () => Promise.resolve({ replayed: 0, failed: [] }),
    ...top,
    queries: {
      ipHistory: () => Promise.resolve([]),
      userRoomHistory: () => Promise.resolve([]),
      roundsByRoom: () => Promise.resolve([]),
      round: () => Promise.resolve(null),
      roundResults: () => Promise.resolve([]),
      telemetry: () => Promise.resolve([]),
      events: () => Promise.resolve([]),
      roomSnapshots: () => Promise.resolve([]),
      benchmarkReports: () => Promise.resolve([]),
      user: () => Promise.resolve(null),
      totalPlayers: () => Promise.resolve(0),
      ...queries,
    },
  };
}
