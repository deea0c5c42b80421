/**
 * `deno task cache`: gets a checkout ready to run, before every server
 * role starts (issue 15).
 *
 * 1. Builds the bundle that `deno task start` runs, unless the one there is
 *    of the same sources: `deno bundle` of `src/roles/mod.ts`, minified and
 *    split at its dynamic imports, plus one bundle per worker script of
 *    {@link BUNDLED_WORKERS}, with linked source maps (Deno maps stack
 *    traces back to the sources). `deno run` keeps every module it loaded
 *    for the life of the process: the bundle starts ~14 MiB smaller than the
 *    985 source modules. Each build goes to a directory of its own, named by
 *    a hash of its inputs; `start.js` beside it runs it. A server still
 *    running an older build keeps its files: the build before the current
 *    one is kept.
 * 2. Parses every module a role loads into Deno's cache (`deno cache`): a
 *    process that parses its own modules keeps the parsers' memory, ~50 MiB,
 *    for its whole life.
 *
 * Arguments: `--frozen` (passed on: the lockfile must not change) and
 * `--out <dir>` (where the bundle goes, default `build`; the systemd unit
 * keeps it in its cache directory, outside a read-only checkout).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { applyEdits, bundleEdits, ROOT_MARK, withoutSourcesContent } from "./bundle_edit.ts";
import { LAUNCHER_CONFIG, launcherConfig, launcherText, startBuiltins } from "./bundle_launcher.ts";
import { BUNDLED_WORKERS, PROGRAM_ROOT, workerBundleName } from "../src/util/program_files.ts";

/** The bundle's entry point; it exports `runChorus`. */
export const BUNDLE_ENTRY = "src/roles/mod.ts";
/** The launcher `deno task start` runs, in the output directory. */
export const LAUNCHER = "start.js";
/** Scripts run from the sources, only parsed here: the other roles, the converter's worker, the plugin host's children. */
export const SOURCE_ENTRIES = [
  "main.ts",
  "src/persistence/backends/pglite_convert_worker.ts",
  "src/plugins/child/runner.ts",
  "src/plugins/compile/transpile_main.ts",
  ...BUNDLED_WORKERS,
] as const;
/** Bumped when the way a bundle is built changes, so that older builds are not taken for current ones. */
const BUILD_FORMAT = "2";
const BUNDLE_FLAGS = ["--platform", "deno", "--packages", "bundle", "--minify", "--sourcemap=linked"];

/** Options from the command line. */
export interface BundleOptions {
  readonly out: string;
  readonly frozen: boolean;
}

/** Reads `--frozen` and `--out <dir>`; throws on anything else. */
export function parseBundleArgs(args: readonly string[]): BundleOptions {
  let out = "build";
  let frozen = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--frozen" || a === "--frozen=true") frozen = true;
    else if (a === "--out" && args[i + 1]) out = args[++i]!;
    else if (a.startsWith("--out=")) out = a.slice(6);
    else throw new Error(`deno task cache: unknown argument ${a} (known: --frozen, --out <dir>)`);
  }
  return { out: out.replace(/\/+$/, "") || "/", frozen };
}

/** The files whose content makes a bundle: the sources (tests excluded), `deno.json`, the lockfile and this build. */
export function bundleInputs(root: string): string[] {
  const files = ["main.ts", "deno.json", "deno.lock", "deploy/bundle.ts", "deploy/bundle_edit.ts"]
    .filter((f) => isFile(`${root}${f}`));
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${root}${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (/\.(ts|js|json)$/.test(entry.name) && !/_(test|bench)\.ts$|_test_util\.ts$/.test(entry.name)) {
        files.push(path);
      }
    }
  };
  for (const dir of ["src", "legacy"]) if (isDirectory(`${root}${dir}`)) walk(dir);
  return files.toSorted();
}

/** A hash of everything a build depends on: the inputs' paths and bytes, Deno's version, where the sources are. */
export async function bundleStamp(root: string): Promise<string> {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode(`${BUILD_FORMAT}\0${Deno.version.deno}\0${root}\0`)];
  for (const file of bundleInputs(root)) parts.push(enc.encode(`${file}\0`), await Deno.readFile(`${root}${file}`));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) all.set(p, (at += p.length) - p.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function deno(args: readonly string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), { args: [...args], cwd, stdin: "null" }).output();
  if (out.success) return;
  const text = new TextDecoder().decode(out.stderr).trim() || new TextDecoder().decode(out.stdout).trim();
  throw new Error(`deno ${args[0]} failed:\n${text}`);
}

/** Bundles into `dir` (which must not exist), then makes the edits of `bundle_edit.ts`. */
async function buildInto(dir: string, root: string, frozen: boolean): Promise<void> {
  const extra = frozen ? ["--frozen"] : [];
  await Promise.all([
    deno(["bundle", ...BUNDLE_FLAGS, ...extra, "--code-splitting", "--outdir", dir, BUNDLE_ENTRY], root),
    ...BUNDLED_WORKERS.map((w) =>
      deno(["bundle", ...BUNDLE_FLAGS, ...extra, "--output", `${dir}/${workerBundleName(w)}`, w], root)
    ),
  ]);
  let marks = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".js")) continue;
    const path = `${dir}/${entry.name}`;
    const code = await Deno.readTextFile(path);
    const map = await Deno.readTextFile(`${path}.map`).catch(() => null);
    marks += code.split(ROOT_MARK).length - 1;
    const done = applyEdits({ code, map }, bundleEdits(code, PROGRAM_ROOT.href));
    if (done.code !== code) await Deno.writeTextFile(path, done.code);
    const slim = done.map === null ? null : withoutSourcesContent(done.map);
    if (slim !== null && slim !== map) await Deno.writeTextFile(`${path}.map`, slim);
  }
  if (marks === 0) throw new Error("the bundle does not hold the sources' root mark of src/util/program_files.ts");
}

/**
 * Removes builds other than `keep` and the newest other one, and temporary
 * directories over an hour old. Several `deno task cache` may prune at once
 * (parallel `deno task start`s): a directory already gone is no error.
 */
function prune(out: string, keep: string): void {
  const builds: { name: string; mtime: number }[] = [];
  const remove = (name: string) => {
    try {
      Deno.removeSync(`${out}/${name}`, { recursive: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  };
  for (const entry of Deno.readDirSync(out)) {
    if (!entry.isDirectory || entry.name === keep) continue;
    const mtime = statMtime(`${out}/${entry.name}`);
    if (mtime === null) continue;
    if (/^[0-9a-f]{16}$/.test(entry.name)) builds.push({ name: entry.name, mtime });
    else if (/^[0-9a-f]{16}\.tmp-\d+$/.test(entry.name) && Date.now() - mtime > 3600_000) remove(entry.name);
  }
  for (const old of builds.toSorted((a, b) => b.mtime - a.mtime).slice(1)) remove(old.name);
}

/** Builds the bundle when needed, writes the launcher and parses every module into Deno's cache. */
export async function prepare(o: BundleOptions, log: (line: string) => void = console.log): Promise<string> {
  const root = fileURLToPath(PROGRAM_ROOT);
  const out = o.out.startsWith("/") ? o.out : `${root}${o.out}`;
  const stamp = await bundleStamp(root);
  const build = `${out}/${stamp}`;
  await Deno.mkdir(out, { recursive: true });
  if (!isDirectory(build)) {
    const started = performance.now();
    const tmp = `${build}.tmp-${Deno.pid}`;
    try {
      await buildInto(tmp, root, o.frozen);
      // Another `deno task cache` may have finished the same build meanwhile: either copy is the same.
      if (!isDirectory(build)) await Deno.rename(tmp, build);
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
    const mb = (await Array.fromAsync(Deno.readDir(build), (e) => Deno.stat(`${build}/${e.name}`)))
      .reduce((n, st) => n + st.size, 0) / 1048576;
    log(
      `bundled the server into ${build} (${mb.toFixed(1)} MB) in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
  }
  const launcher = `${out}/${LAUNCHER}`;
  await replaceFile(`${out}/${LAUNCHER_CONFIG}`, launcherConfig(await Deno.readTextFile(`${root}deno.json`)));
  await replaceFile(launcher, launcherText(stamp, startBuiltins(build), PROGRAM_ROOT.href));
  prune(out, stamp);
  const modules = (await Array.fromAsync(Deno.readDir(build))).filter((e) => e.name.endsWith(".js"))
    .map((e) => `${build}/${e.name}`);
  // The sources first: Deno finds deno.json (the import map) from the first file it is given.
  await deno(["cache", ...(o.frozen ? ["--frozen"] : []), ...SOURCE_ENTRIES, launcher, ...modules.toSorted()], root);
  return launcher;
}

/** Writes `text` to `path` unless it holds it already; atomically, for parallel runs and running servers. */
async function replaceFile(path: string, text: string): Promise<void> {
  if (await Deno.readTextFile(path).catch(() => null) === text) return;
  await Deno.writeTextFile(`${path}.tmp-${Deno.pid}`, text);
  await Deno.rename(`${path}.tmp-${Deno.pid}`, path);
}

/** A path's modification time; null when it is gone. */
function statMtime(path: string): number | null {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return null;
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  try {
    await prepare(parseBundleArgs(Deno.args));
  } catch (error) {
    console.error(`deno task cache: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
