/**
 * Builds the plugins in `plugins/` from source (`deno task build-plugins`):
 * a `plugin.js` through componentize-js (StarlingMonkey; every WASI feature
 * off, so the component imports only the plugin world) or a `plugin.wat`
 * through wasm-tools (`parse`, `component embed`, `component new`, as jco
 * ships them). Both run offline. Builds are cached by content
 * (`build_key.ts`) under `dist/plugin-builds/`; the outputs `<id>.wasm` and
 * `<id>.capabilities.json` go to `--out` (default `dist/plugins/`), ready to
 * copy into `plugins_dir`.
 *
 *   deno task build-plugins [--out <dir>] [--cache <dir>] [--test] [<plugin dir>...]
 *
 * Without directories it builds `plugins/examples/*` (and `plugins/test/*`
 * with `--test`).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { cachedPath, type PluginSource, readSource } from "./build_key.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** jco's bundled wasm-tools read files through preview2-shim, which starts with no preopened directories. */
async function openFilesystem(): Promise<void> {
  const shim = await import("@bytecodealliance/preview2-shim/filesystem");
  // Typed from the browser build; under Deno the Node build runs, which maps virtual paths to host paths.
  (shim._setPreopens as unknown as (preopens: Record<string, string>) => void)({ "/": "/" });
}

async function buildWat(src: PluginSource): Promise<Uint8Array> {
  const tools = await import("@bytecodealliance/jco-transpile/wasm-tools");
  const core = await tools.parse(src.source);
  const embedded = await tools.componentEmbed({ binary: core, witSource: src.wit, world: src.world });
  return await tools.componentNew(embedded);
}

async function buildJs(src: PluginSource): Promise<Uint8Array> {
  await openFilesystem();
  const { componentize } = await import("@bytecodealliance/componentize-js");
  const witDir = await Deno.makeTempDir({ prefix: "plugin-wit-" });
  try {
    await Deno.writeTextFile(`${witDir}/world.wit`, src.wit);
    const { component } = await componentize({
      sourcePath: `${src.dir}/plugin.js`,
      witPath: `${witDir}/world.wit`,
      worldName: src.world,
      disableFeatures: ["random", "stdio", "clocks", "http", "fetch-event"],
    });
    return component;
  } finally {
    await Deno.remove(witDir, { recursive: true });
  }
}

/** Builds one plugin directory into the cache (unless cached); returns the cached path. */
export async function buildOne(dir: string, cacheDir: string): Promise<{ path: string; built: boolean; ms: number }> {
  const src = await readSource(dir);
  const path = await cachedPath(cacheDir, src);
  try {
    await Deno.stat(path);
    return { path, built: false, ms: 0 };
  } catch {
    // Not cached.
  }
  const started = performance.now();
  const bytes = src.kind === "js" ? await buildJs(src) : await buildWat(src);
  await Deno.mkdir(cacheDir, { recursive: true });
  const temp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.writeFile(temp, bytes);
  await Deno.rename(temp, path);
  return { path, built: true, ms: Math.round(performance.now() - started) };
}

async function pluginDirs(parent: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(parent)) if (e.isDirectory) out.push(`${parent}/${e.name}`);
  return out.sort();
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      out: { type: "string", default: `${ROOT}dist/plugins` },
      cache: { type: "string", default: `${ROOT}dist/plugin-builds` },
      test: { type: "boolean", default: false },
    },
    allowPositionals: true,
  });
  const dirs = positionals.length
    ? positionals
    : [...await pluginDirs(`${ROOT}plugins/examples`), ...(values.test ? await pluginDirs(`${ROOT}plugins/test`) : [])];
  await Deno.mkdir(values.out, { recursive: true });
  let failed = 0;
  for (const dir of dirs) {
    try {
      const src = await readSource(dir);
      const { path, built, ms } = await buildOne(dir, values.cache);
      await Deno.copyFile(path, `${values.out}/${src.id}.wasm`);
      if (src.capabilities !== null) {
        await Deno.writeTextFile(`${values.out}/${src.id}.capabilities.json`, src.capabilities);
      }
      console.log(`${src.id}: ${built ? `built in ${ms} ms` : "cached"} \u2192 ${values.out}/${src.id}.wasm`);
    } catch (error) {
      failed++;
      console.error(`${dir}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  Deno.exit(failed ? 1 : 0);
}
