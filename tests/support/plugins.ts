/**
 * Plugin test support: builds plugins from `plugins/` once per content
 * (cached under `dist/plugin-builds/`, by `deno task build-plugins`, in a
 * separate process so the toolchain never loads into the test process) and
 * starts a game server with the operations layer, the HTTP app and the
 * plugin host over a temporary `plugins_dir` — the plugins running in real
 * child processes. Compiled plugins are cached for all tests under
 * `dist/plugin-cache-test/`.
 *
 * @module
 */

import { type Config, defaultConfig } from "../../src/config/mod.ts";
import { createHttpApp, type HttpApp, RouteRegistry, SseRegistry } from "../../src/http/mod.ts";
import { type PluginSystem, startPlugins } from "../../src/plugins/mod.ts";
import { cachedPath, readSource } from "../../plugins/build_key.ts";
import { type ConsoleHarness, startConsoleHarness } from "./console.ts";
import { settle } from "./harness.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
/** Build cache shared by the tests (and `deno task build-plugins`). */
export const BUILD_CACHE = `${ROOT}dist/plugin-builds`;
/** Compile cache shared by the tests. */
export const COMPILE_CACHE = `${ROOT}dist/plugin-cache-test`;

/** A plugin directory of this checkout: `examples/<name>` or `test/<name>`. */
export function pluginDir(name: string): string {
  return `${ROOT}plugins/${name}`;
}

/** The built component of a plugin directory (building it on a cache miss). */
export async function builtPlugin(dir: string): Promise<string> {
  const path = await cachedPath(BUILD_CACHE, await readSource(dir));
  try {
    await Deno.stat(path);
    return path;
  } catch {
    // Build it below.
  }
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks as Record<string, string>;
  const flags = tasks["build-plugins"]!.split(/\s+/).filter((w) => w.startsWith("--"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, `${ROOT}plugins/build.ts`, "--out", await Deno.makeTempDir(), "--cache", BUILD_CACHE, dir],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`building ${dir} failed: ${new TextDecoder().decode(out.stderr)}`);
  return path;
}

/** A plugin to install: a directory of `plugins/` (built) or a component file, and its sidecar. */
export interface InstallSpec {
  readonly id: string;
  /** `examples/<name>`, `test/<name>` or an absolute directory. */
  readonly source?: string;
  /** A component file instead of a source. */
  readonly wasm?: string;
  /** Capabilities (sidecar written); a string is written as the sidecar's text. */
  readonly capabilities?: readonly string[] | string;
}

/** Copies a plugin into `pluginsDir`. */
export async function install(pluginsDir: string, spec: InstallSpec): Promise<void> {
  const from = spec.wasm ?? await builtPlugin(spec.source!.startsWith("/") ? spec.source! : pluginDir(spec.source!));
  await Deno.copyFile(from, `${pluginsDir}/${spec.id}.wasm`);
  if (spec.capabilities !== undefined) {
    const text = typeof spec.capabilities === "string"
      ? spec.capabilities
      : JSON.stringify({ capabilities: spec.capabilities });
    await Deno.writeTextFile(`${pluginsDir}/${spec.id}.capabilities.json`, text);
  }
}

/** A server with plugins. */
export interface PluginHarness {
  readonly ch: ConsoleHarness;
  readonly http: HttpApp;
  readonly system: PluginSystem;
  readonly pluginsDir: string;
  readonly dataDir: string;
  /** In-process HTTP request; JSON body parsed. */
  json(path: string, init?: RequestInit): Promise<{ status: number; body: unknown }>;
  /** A console line as the operator. */
  run(line: string): ReturnType<ConsoleHarness["run"]>;
  close(): Promise<void>;
}

/** Options of {@link startPluginHarness}. */
export interface PluginHarnessOptions {
  readonly plugins: readonly InstallSpec[];
  readonly limits?: Partial<Config["wasm_runtime"]>;
  readonly secret?: string;
}

/** Installs the plugins, starts the server and waits until they are loaded. */
export async function startPluginHarness(o: PluginHarnessOptions): Promise<PluginHarness> {
  const pluginsDir = await Deno.makeTempDir({ prefix: "plugins-" });
  const dataDir = await Deno.makeTempDir({ prefix: "plugin-data-" });
  for (const spec of o.plugins) await install(pluginsDir, spec);
  const ch = await startConsoleHarness();
  const routes = new RouteRegistry();
  const streams = new SseRegistry();
  const config = { ...defaultConfig(), monitors: [9, 10] };
  const http = createHttpApp({ server: ch.h.server, config, ops: ch.ops, routes, streams });
  const system = startPlugins({
    pluginsDir,
    dataDir: `${dataDir}/plugins`,
    cacheDir: COMPILE_CACHE,
    limits: { ...defaultConfig().wasm_runtime, ...o.limits },
    secret: o.secret ?? null,
    ops: ch.ops,
    bus: ch.h.bus,
    core: ch.h.server.core,
    routes,
    streams,
    commands: {
      add: (c) =>
        ch.registry.register({
          name: c.name,
          args: [{ name: "args", kind: "words", optional: true }],
          help: c.help,
          run: (a) => c.run(a.words("args")),
        }),
    },
    clock: ch.h.clock,
    log: ch.h.logs.logger(),
  });
  await system.started;
  return {
    ch,
    http,
    system,
    pluginsDir,
    dataDir,
    async json(path, init) {
      const res = await http.request(path, init);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    run: (line) => ch.run(line),
    async close() {
      await system.stop();
      await http.closeStreams();
      await settle();
      await ch.close();
      await Deno.remove(pluginsDir, { recursive: true }).catch(() => {});
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
