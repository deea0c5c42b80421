/**
 * `deno task compile`: builds `dist/chorus`, one executable holding every
 * role (start, dev, check-config, load, accounts, companions) with the
 * static pages and the worker scripts embedded.
 *
 * What goes in: the module graph of `main.ts` — the roles' modules are
 * dynamic imports with literal specifiers, so they are embedded and loaded
 * only by the role that runs — plus `static/` and the worker entry points,
 * which no import names. What stays out: with `--exclude-unused-npm` only
 * the npm packages that graph reaches are embedded; without it `deno
 * compile` embeds every package of the lockfile, test-only ones
 * (playwright-core, the Prometheus text parser) included.
 *
 * `deno compile` writes its output onto Deno's standalone runtime
 * (`denort`), which it downloads once into Deno's cache. Where that cannot
 * happen (no network), the task says so in one line: point `DENORT_BIN` at
 * a `denort` binary of the same Deno version.
 *
 * @module
 */

import { denoTasks, runTask } from "../src/util/deno_tasks.ts";

/** Permissions baked into the binary: those of `deno task start`, plus what the companions' command service runs. */
export const BINARY_PERMISSIONS = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-run=bash,uname",
] as const;

/** Files loaded at run time that no import names: the pages, worker scripts and the built-in Lua plugins. */
export const EMBEDDED = [
  "static/",
  "legacy/plugins/",
  "src/accounts/password_worker.ts",
  "src/persistence/backends/pglite_convert_worker.ts",
  "src/persistence/backends/sqlite_thread_worker.ts",
  "src/replay/io_worker.ts",
] as const;

/**
 * The runtime memory flags of `deno task start` (`--v8-flags=…`,
 * `--no-code-cache` in `deno.json`), baked into the binary so that
 * `chorus start` runs with the memory settings the task has (issue 15: a
 * 2 MiB semi-space, a heap grown to 1.5 times what is live, no code cache
 * held open). Empty when the task sets none.
 */
export function startRuntimeFlags(denoJson: string): string[] {
  return runTask(denoTasks(denoJson), "start").flags.filter((word) =>
    word.startsWith("--v8-flags=") || word === "--no-code-cache"
  );
}

/** Deno's cache directories (`deno info --json`). */
export interface DenoDirs {
  readonly denoDir: string;
  readonly npmCache: string;
}

/** Asks `deno info` where its caches are. */
export async function denoDirs(): Promise<DenoDirs> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped", stderr: "null" })
    .output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as DenoDirs;
  return { denoDir: info.denoDir, npmCache: info.npmCache };
}

/**
 * Parts of npm packages that are never loaded, by package: bintrees
 * (prom-client → tdigest) ships a 2 MB test fixture without a file
 * extension that `deno compile` 2.9.6 cannot embed (its stack overflows);
 * @sentry/core and @sentry/conventions ship 8 MB of TypeScript declarations and source maps.
 */
const NPM_EXCLUDED: Readonly<Record<string, readonly string[]>> = {
  bintrees: ["test"],
  "@sentry/core": ["build/types", "build/types-ts3.8"],
  "@sentry/conventions": ["d.ts", "d.mts", "d.cts", "cjs.map", "mjs.map"].map((ext) => `dist/attributes.${ext}`),
};

function npmExclusions(dirs: DenoDirs, lock: string): string[] {
  return Object.entries(NPM_EXCLUDED).flatMap(([name, parts]) => {
    const version = new RegExp(`"${name.replace("/", "\\/")}@([^"]+)"`).exec(lock)?.[1];
    return version ? parts.map((part) => `${dirs.npmCache}/registry.npmjs.org/${name}/${version}/${part}`) : [];
  });
}

/** The `deno compile` arguments writing `output`. */
export function compileArgs(dirs: DenoDirs, output = "dist/chorus", extra: readonly string[] = []): string[] {
  const lock = (() => {
    try {
      return Deno.readTextFileSync("deno.lock");
    } catch {
      return "";
    }
  })();
  return [
    "compile",
    ...BINARY_PERMISSIONS,
    ...startRuntimeFlags(Deno.readTextFileSync(new URL("../deno.json", import.meta.url))),
    "--exclude-unused-npm",
    ...EMBEDDED.flatMap((path) => ["--include", path]),
    ...npmExclusions(dirs, lock).flatMap((path) => ["--exclude", path]),
    ...extra,
    "--output",
    output,
    "main.ts",
  ];
}

/** Where `deno compile` caches the runtime it downloads. */
export function cachedRuntime(dirs: DenoDirs): string {
  return `${dirs.denoDir}/dl/release/v${Deno.version.deno}/denort-${Deno.build.target}.zip`;
}

/** The runtime `deno compile` will use: `DENORT_BIN`, the cached download, or null when neither exists. */
export function availableRuntime(dirs: DenoDirs): { path: string; from: "DENORT_BIN" | "cache" } | null {
  const bin = Deno.env.get("DENORT_BIN");
  if (bin) return exists(bin) ? { path: bin, from: "DENORT_BIN" } : null;
  const cached = cachedRuntime(dirs);
  return exists(cached) ? { path: cached, from: "cache" } : null;
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Why the runtime cannot be downloaded now, or null when it can. */
async function downloadProblem(): Promise<string | null> {
  const url = `https://dl.deno.land/release/v${Deno.version.deno}/denort-${Deno.build.target}.zip`;
  try {
    const response = await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(5000) });
    await response.body?.cancel();
    return response.ok ? null : `the download answered HTTP ${response.status}`;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return error instanceof Error ? `${error.message.split("\n")[0]}${cause.split("\n")[0]}` : String(error);
  }
}

async function main(): Promise<number> {
  const dirs = await denoDirs();
  const runtime = availableRuntime(dirs);
  const bin = Deno.env.get("DENORT_BIN");
  if (bin && !runtime) {
    console.error(`Cannot build dist/chorus: DENORT_BIN=${bin} is not a file`);
    return 1;
  }
  if (!runtime) {
    const problem = await downloadProblem();
    if (problem) {
      console.error(
        `Cannot build dist/chorus: Deno's standalone runtime (denort ${Deno.version.deno} for ${Deno.build.target}) ` +
          `is not cached and cannot be downloaded (${problem}); set DENORT_BIN to a denort ${Deno.version.deno} binary`,
      );
      return 1;
    }
  }
  const status = await new Deno.Command(Deno.execPath(), { args: compileArgs(dirs), stdin: "null" }).spawn().status;
  if (!status.success) return status.code || 1;
  const size = (await Deno.stat("dist/chorus")).size;
  console.log(`dist/chorus: ${(size / 1_048_576).toFixed(1)} MiB`);
  return 0;
}

if (import.meta.main) Deno.exit(await main());
