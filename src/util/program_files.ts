/**
 * Where the program's own files are (pages, worker scripts, child
 * scripts, `deno.json`), whether it runs from its sources or from the
 * bundle that `deno task cache` builds for `deno task start`
 * (`deploy/bundle.ts`).
 *
 * Why a bundle (issue 15): `deno run` keeps the whole module graph it
 * loaded for the life of the process, every module's text and records
 * included, and also the modules behind dynamic imports it never runs.
 * One minified bundle split at the dynamic imports starts ~14 MiB
 * smaller than the 985 source modules (BENCHMARKS.md, fifth session).
 *
 * A bundle's modules lie flat in one directory, anywhere (a service's
 * cache directory, say), so `import.meta.url` no longer says where the
 * sources are: the build writes the sources' root into its output, and a
 * module that needs a file of the program asks here.
 *
 * @module
 */

/** The sources' root URL in a bundle: the build writes it over this string literal (`deploy/bundle.ts`). */
const builtRoot: string = "@@CHORUS_SOURCES_ROOT@@";

/** True when this code runs from the bundle built by `deno task cache`, false when from the sources. */
export const BUNDLED: boolean = !builtRoot.startsWith("@@");

/** The repository's root (`main.ts`, `deno.json`, `static/`, `src/`), with a trailing slash. */
export const PROGRAM_ROOT: URL = BUNDLED ? new URL(builtRoot) : new URL("../../", import.meta.url);

/** The URL of a file of the program, by its path from the repository's root (`static/admin/`). */
export function programFile(path: string): URL {
  return new URL(path, PROGRAM_ROOT);
}

/** The worker scripts the bundle build bundles too, each as `<name>.js` beside the bundle's modules. */
export const BUNDLED_WORKERS = [
  "src/accounts/password_worker.ts",
  "src/persistence/backends/sqlite_thread_worker.ts",
  "src/replay/io_worker.ts",
] as const;

/**
 * The script of a worker by its source path: the source file, or in a
 * bundle its bundled copy when it is one of {@link BUNDLED_WORKERS}
 * (the PGlite conversion's worker stays a source: PGlite finds its
 * WebAssembly beside its own modules).
 */
export function workerScript(source: string, bundled = BUNDLED): URL {
  if (bundled && (BUNDLED_WORKERS as readonly string[]).includes(source)) {
    return new URL(workerBundleName(source), import.meta.url);
  }
  return programFile(source);
}

/** The file name of a worker's bundle: `src/replay/io_worker.ts` -> `io_worker.js`. */
export function workerBundleName(source: string): string {
  return `${source.slice(source.lastIndexOf("/") + 1).replace(/\.ts$/, "")}.js`;
}
