/**
 * The launcher of a bundle (`build/start.js`, written by `deno task cache`),
 * the Node built-ins it imports before the bundle, and its configuration.
 *
 * Why the built-ins: when a module that has a linked source map is the
 * first to import a `node:` built-in statically, Deno 2.9.6 reads and keeps
 * the source maps of every module on the stack at that moment (measured:
 * ten maps, ~3 MiB at start). The launcher has no source map, so the
 * built-ins the game server imports at start-up are imported by it first;
 * a map is then read when a stack trace is formatted or when its module
 * first imports dynamically (that module's map only).
 *
 * Beside the launcher goes its own configuration, `deno.jsonc`, which Deno
 * finds first from the launcher's directory: the checkout's import map and
 * no lockfile. The bundle holds its packages; the import map is for the one
 * script that runs from the sources (the PGlite converter's worker). The
 * checkout's configuration with its lockfile costs ~1.5 MiB more to hold
 * (measured), and an output directory outside the checkout (the systemd
 * unit's) had no configuration at all, so the converter could not start.
 *
 * @module
 */

/** The launcher's own configuration file, beside it. */
export const LAUNCHER_CONFIG = "deno.jsonc";

/** The module of the game server's role (`start`, `dev`, `legacy` run it); its chunk is found by its source map. */
export const SERVER_ROLE_SOURCE = "src/roles/serve.ts";

/** Static imports of a minified module: `import{a}from"x"`, `import*as b from"x"`, `import"x"`. */
const STATIC_IMPORT = /(?:^|[;\n}])\s*import\s*(?:[\w$*{][^;"'`]*?from\s*)?"([^"]+)"/g;

/** The specifiers a bundled module imports statically (not its `import(...)` calls). */
export function staticImports(code: string): string[] {
  return Array.from(code.matchAll(STATIC_IMPORT), (m) => m[1]!);
}

/**
 * The `node:` built-ins imported statically by `entries` and every sibling
 * module they import statically, sorted. `read` gives a module's text by
 * its file name in the build directory.
 */
export function builtinsOf(entries: readonly string[], read: (name: string) => string): string[] {
  const builtins = new Set<string>();
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const specifier of staticImports(read(name))) {
      if (specifier.startsWith("node:")) builtins.add(specifier);
      else if (specifier.startsWith("./")) todo.push(specifier.slice(2));
    }
  }
  return [...builtins].sort();
}

/** The built-ins the launcher imports for the build in `dir`: those of `mod.js` and of the server role's chunk. */
export function startBuiltins(dir: string): string[] {
  const entries = ["mod.js"];
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.endsWith(".js.map")) continue;
    const { sources = [] } = JSON.parse(Deno.readTextFileSync(`${dir}/${entry.name}`)) as { sources?: string[] };
    if (sources.some((s) => s.endsWith(SERVER_ROLE_SOURCE))) entries.push(entry.name.slice(0, -".map".length));
  }
  if (entries.length === 1) throw new Error(`no module of the bundle in ${dir} maps to ${SERVER_ROLE_SOURCE}`);
  return builtinsOf(entries, (name) => Deno.readTextFileSync(`${dir}/${name}`));
}

/** The launcher's text: imports `builtins`, then runs the build in `stamp/`. */
export function launcherText(stamp: string, builtins: readonly string[], root: string): string {
  return [
    `// Written by \`deno task cache\` (deploy/bundle.ts); \`deno task start\` runs it. Build ${stamp} of ${root}`,
    "// Built-ins first: imported from here, they do not make Deno read the bundle's source maps (bundle_launcher.ts).",
    ...builtins.map((b) => `import ${JSON.stringify(b)};`),
    `import { runChorus } from "./${stamp}/mod.js";`,
    "Deno.exit(await runChorus(Deno.args));",
    "",
  ].join("\n");
}

/** The launcher's configuration: the import map of the checkout's `deno.json` (its text), no lockfile. */
export function launcherConfig(denoJson: string): string {
  const { imports = {} } = JSON.parse(denoJson) as { imports?: Record<string, string> };
  return [
    "// Written by `deno task cache` (deploy/bundle_launcher.ts) for the launcher beside it: the checkout's import map,",
    "// for the one script that runs from the sources (the PGlite converter's worker); the bundle holds its packages.",
    JSON.stringify({ imports, lock: false }, null, 2),
    "",
  ].join("\n");
}
