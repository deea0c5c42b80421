/**
 * The cache key of a plugin build: SHA-256 of everything the build reads --
 * the source (`plugin.js` or `plugin.wat`), the WIT world, the world name
 * and the toolchain versions -- so an unchanged plugin is never built twice
 * and a changed one always is. Light on purpose: tests compute keys here
 * without loading the toolchain.
 *
 * @module
 */

/** Toolchain versions that shape the output (part of every key). */
export const TOOLCHAIN = "componentize-js@0.23.0 jco-transpile@0.15.0 build@1";

/** A plugin source directory, read. */
export interface PluginSource {
  /** Directory name = plugin id. */
  readonly id: string;
  readonly dir: string;
  readonly kind: "js" | "wat";
  /** `plugin.js` or `plugin.wat`. */
  readonly source: string;
  /** WIT text the plugin is built against. */
  readonly wit: string;
  readonly world: string;
  /** `capabilities.json` next to the source, if any. */
  readonly capabilities: string | null;
}

/** The repository's WIT world. */
export const REPO_WIT = new URL("../wit/phira-plugin.wit", import.meta.url);

async function readOptional(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * Reads a plugin directory: `plugin.js` or `plugin.wat`, optional
 * `capabilities.json`, optional `build.json` `{"wit": "<file>", "world":
 * "<name>"}` to build against another world (tests of the version check).
 */
export async function readSource(dir: string): Promise<PluginSource> {
  const id = dir.replace(/\/+$/, "").split("/").at(-1)!;
  const js = await readOptional(`${dir}/plugin.js`);
  const wat = js === null ? await readOptional(`${dir}/plugin.wat`) : null;
  if (js === null && wat === null) throw new Error(`${dir} has neither plugin.js nor plugin.wat`);
  const build = JSON.parse(await readOptional(`${dir}/build.json`) ?? "{}") as { wit?: string; world?: string };
  const wit = build.wit ? await Deno.readTextFile(`${dir}/${build.wit}`) : await Deno.readTextFile(REPO_WIT);
  return {
    id,
    dir,
    kind: js !== null ? "js" : "wat",
    source: (js ?? wat)!,
    wit,
    world: build.world ?? "phira-plugin-v3",
    capabilities: await readOptional(`${dir}/capabilities.json`),
  };
}

/** The build's cache key (hex). */
export async function buildKey(src: PluginSource): Promise<string> {
  const text = JSON.stringify([TOOLCHAIN, src.kind, src.source, src.wit, src.world]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 32);
}

/** Where a build of `src` is cached under `cacheDir`. */
export async function cachedPath(cacheDir: string, src: PluginSource): Promise<string> {
  return `${cacheDir}/${src.id}-${await buildKey(src)}.wasm`;
}
