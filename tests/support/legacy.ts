/**
 * Legacy mode on a scenario harness (`harness.ts`): a game server with the
 * manual clock and the development upstream, the operations layer, and
 * `attachLegacy` with plugins written to a temporary folder, settings in
 * memory and the HTTP application called in process (`fetch`, with the
 * client address given). What the console prints (one-time codes) is kept
 * in `consoleLines`. `close` stops legacy mode, then the harness.
 */

import { join } from "node:path";
import { type Config, defaultConfig } from "../../src/config/mod.ts";
import { ConsoleLogSink } from "../../src/console/mod.ts";
import { createOps, type ServerOps } from "../../src/ops/mod.ts";
import {
  attachLegacy,
  BUILTIN_PLUGINS_DIR,
  createLegacyRegistry,
  type LegacyMode,
  MemorySettings,
} from "../../legacy/mod.ts";
import type { LegacyRegistry } from "../../legacy/console_registry.ts";
import { type Harness, type HarnessOptions, settle, startHarness } from "./harness.ts";

/** Options of {@link startLegacy}. */
export interface LegacyHarnessOptions extends HarnessOptions {
  /** Plugins to write: folder name → file name → text. */
  readonly plugins?: Record<string, Record<string, string>>;
  /** Load the built-in plugins too (default false). */
  readonly builtins?: boolean;
  /** Settings to start from (a restart keeps them). */
  readonly settings?: MemorySettings;
  /** Files to put in the working directory (ban files). */
  readonly cwdFiles?: Record<string, string>;
}

/** A running legacy mode for one test. */
export interface LegacyHarness {
  readonly h: Harness;
  readonly ops: ServerOps;
  readonly mode: LegacyMode;
  readonly registry: LegacyRegistry;
  readonly settings: MemorySettings;
  /** Lines written to the operator's console only. */
  readonly consoleLines: string[];
  /** Reasons of shutdown requests. */
  readonly shutdowns: string[];
  /** The temporary folder (data_dir is `<dir>/data`, plugins `<dir>/plugins`, working directory `<dir>/cwd`). */
  readonly dir: string;
  /** Calls the legacy HTTP application as `ip`. */
  fetch(path: string, init?: RequestInit & { ip?: string }): Promise<Response>;
  /** Runs a console line; its output lines. */
  console(line: string): Promise<string[]>;
  /** Lets queued hooks and bus deliveries run. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts legacy mode for a test. */
export async function startLegacy(o: LegacyHarnessOptions = {}): Promise<LegacyHarness> {
  const dir = await Deno.makeTempDir({ prefix: "legacy_test_" });
  const pluginsDir = join(dir, "plugins");
  const cwd = join(dir, "cwd");
  await Deno.mkdir(pluginsDir, { recursive: true });
  await Deno.mkdir(cwd, { recursive: true });
  for (const [folder, files] of Object.entries(o.plugins ?? {})) {
    await Deno.mkdir(join(pluginsDir, folder), { recursive: true });
    for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(pluginsDir, folder, name), text);
  }
  for (const [name, text] of Object.entries(o.cwdFiles ?? {})) await Deno.writeTextFile(join(cwd, name), text);
  const base = defaultConfig();
  const config: Config = {
    ...base,
    // The OS picks the game port (parallel tests); HTTP is called in process.
    port: 0,
    bind_address: "127.0.0.1",
    data_dir: join(dir, "data"),
    http_port: 0,
    monitors: [9, 10],
    welcome: { enabled: false, show_time: false, messages: {} },
    ...o.config,
    legacy: { ...base.legacy, replay_download_bytes_per_sec: 0, ...o.config?.legacy },
  };
  const h = await startHarness({ ...o, config });
  const shutdowns: string[] = [];
  const ops = createOps({ server: h.server, shutdown: (r) => shutdowns.push(r), logs: h.logs });
  const registry = createLegacyRegistry(ops);
  const consoleLines: string[] = [];
  const decoder = new TextDecoder();
  const sink = new ConsoleLogSink({
    writeSync: (bytes: Uint8Array) => {
      consoleLines.push(...decoder.decode(bytes).split("\n").filter((l) => l));
      return bytes.length;
    },
  });
  const settings = o.settings ?? new MemorySettings();
  const mode = await attachLegacy({
    ops,
    logs: h.logs,
    config,
    clock: h.clock,
    registry,
    consoleSink: sink,
    consoleShown: false,
  }, {
    roots: [
      ...(o.builtins ? [{ path: BUILTIN_PLUGINS_DIR, builtin: true }] : []),
      { path: pluginsDir, builtin: false },
    ],
    cwd,
    settings,
    listen: false,
  });
  const settleAll = async () => {
    await settle();
    await mode.host.idle();
    await settle();
    await mode.host.idle();
  };
  return {
    h,
    ops,
    mode,
    registry,
    settings,
    consoleLines,
    shutdowns,
    dir,
    fetch: async (path, init = {}) => {
      const { ip = "127.0.0.1", ...rest } = init;
      return await mode.http.app.fetch(new Request(`http://legacy.test${path}`, rest), { ip });
    },
    console: (line) => registry.execute(line, { kind: "console" }),
    settle: settleAll,
    async close() {
      await mode.close();
      registry.close();
      await h.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** JSON of a response with its status. */
export async function jsonOf(res: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: res.status, body: await res.json() };
}
