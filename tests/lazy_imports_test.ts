/**
 * Load on demand (issue 15): what `deno task start` loads before it serves —
 * `main.ts` and the game server it imports for the `start` role
 * (`src/roles/serve.ts`) with everything they import statically — holds only
 * what a game server uses. The load generator, the development upstream,
 * the database drivers, the chart service's parsers and decoders, the plugin
 * host, the other roles, the metrics registry, the Sentry SDK and fengari are
 * dynamic imports, loaded when configured or first used. The graph is the one
 * `deno info --json` computes, so a new static import of any of them fails
 * here.
 *
 * @module
 */

import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url);

interface GraphModule {
  readonly specifier: string;
  readonly kind?: string;
  readonly dependencies?: readonly { readonly code?: { readonly specifier?: string }; readonly isDynamic?: boolean }[];
}

interface Graph {
  readonly roots: readonly string[];
  readonly modules: readonly GraphModule[];
  readonly redirects: Readonly<Record<string, string>>;
}

async function denoInfo(entry: string): Promise<Graph> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, `deno info ${entry} failed: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** Modules reachable from the graph's roots through static imports (type-only imports are not loaded at run time). */
function staticClosure(graph: Graph): Map<string, string | null> {
  const modules = new Map(graph.modules.map((m) => [m.specifier, m]));
  const resolve = (s: string) => {
    for (let i = 0; i < 10 && graph.redirects[s]; i++) s = graph.redirects[s]!;
    return s;
  };
  // Each module with the one that first imported it, to say in a failure how it got in.
  const parent = new Map<string, string | null>();
  const queue = graph.roots.map(resolve);
  for (const root of queue) parent.set(root, null);
  while (queue.length) {
    const at = queue.pop()!;
    for (const dep of modules.get(at)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (dep.isDynamic || !target) continue;
      const next = resolve(target);
      if (parent.has(next)) continue;
      parent.set(next, at);
      queue.push(next);
    }
  }
  return parent;
}

/** The start path: `main.ts` and the `start` role's game server (`src/roles/serve.ts`, imported by the role). */
async function startPath(): Promise<Map<string, string | null>> {
  const [main, serve] = await Promise.all([denoInfo("main.ts"), denoInfo("src/roles/serve.ts")]);
  return new Map([...staticClosure(main), ...staticClosure(serve)]);
}

const base = ROOT.href;
const short = (s: string) => s.startsWith(base) ? s.slice(base.length) : s;

function chain(loaded: Map<string, string | null>, s: string): string {
  const path = [short(s)];
  for (let at = loaded.get(s); at; at = loaded.get(at)) path.push(short(at));
  return path.join(" ← ");
}

/** Local modules (paths from the repository root) that a game server must not load at start. */
const LOCAL: readonly { readonly prefix: string; readonly except?: readonly string[]; readonly why: string }[] = [
  // The benchmark's grammar (usage, parsing) serves the console's help; the runner is loaded on the first run.
  // The `load` role's option grammar serves its usage text.
  {
    prefix: "src/load/",
    except: ["src/load/inprocess_report.ts", "src/load/args.ts", "src/load/args_spec.ts"],
    why: "the load generator",
  },
  { prefix: "src/upstream/dev_", why: "the development upstream" },
  {
    prefix: "src/persistence/backends/pglite",
    // The converter's front only looks for an old PGlite directory; PGlite itself loads in its worker.
    except: ["src/persistence/backends/pglite_convert.ts"],
    why: "PGlite",
  },
  { prefix: "src/persistence/backends/postgres_db.ts", why: "the PostgreSQL driver" },
  {
    prefix: "src/chart/",
    // The chart route's error answers and its lazy opener; the chart errors the room reports.
    except: [
      "src/chart/build/http_errors.ts",
      "src/chart/build/lazy.ts",
      "src/chart/errors.ts",
      "src/chart/parse/errors.ts",
    ],
    why: "the chart service and prober",
  },
  { prefix: "src/plugins/", why: "the plugin host" },
  { prefix: "src/client/", why: "the game client (the spectator bridge loads it with its first viewer)" },
  { prefix: "src/uds/", except: ["src/uds/approvals.ts"], why: "the local socket's server (off by default)" },
  { prefix: "src/config/file.ts", why: "the YAML reader (only when there is a configuration file)" },
  { prefix: "src/accounts/", except: [], why: "the account backend" },
  { prefix: "src/companions/", why: "the companion services" },
  { prefix: "src/proxy/", why: "the monitor proxy" },
  { prefix: "legacy/", why: "legacy mode" },
  { prefix: "src/metrics/server_metrics.ts", why: "the metrics registry" },
  { prefix: "src/reporting/sentry.ts", why: "the Sentry client" },
  { prefix: "static/", why: "pages and assets, read on request" },
];

/** npm packages that a game server must not load at start. */
const NPM = [
  "@electric-sql/pglite",
  "postgres",
  "mpg123-decoder",
  "@wasm-audio-decoders/ogg-vorbis",
  "@wasm-audio-decoders/flac",
  "@audio/decode-wav",
  "fast-png",
  "jpeg-js",
  "omggif",
  "fflate",
  "prom-client",
  "@sentry/core",
  "fengari",
  "jose",
  "@bytecodealliance/jco-transpile",
  "@bytecodealliance/componentize-js",
  "@bytecodealliance/preview2-shim",
  "playwright-core",
  "hash-wasm",
  "ws",
  "yaml",
];

/** npm packages whose main entry must not load at start (a subpath may: `zod/mini` is the one zod the program uses). */
const NPM_MAIN = ["zod"];

Deno.test("the start path imports only what a game server uses; the rest loads on demand", async () => {
  const loaded = await startPath();
  const local = [...loaded.keys()].filter((s) => s.startsWith(base)).map(short);
  // The graph is the real one: the game server's core is in it.
  for (const core of ["src/app.ts", "src/server/mod.ts", "src/persistence/mod.ts", "src/http/mod.ts"]) {
    assert.ok(local.includes(core), `${core} is missing from the start path: the graph is not the one expected`);
  }
  const wrong: string[] = [];
  for (const rule of LOCAL) {
    for (const path of local) {
      if (path.startsWith(rule.prefix) && !rule.except?.includes(path)) {
        wrong.push(`${rule.why}: ${chain(loaded, base + path)}`);
      }
    }
  }
  for (const name of NPM) {
    for (const s of loaded.keys()) {
      if (s.startsWith(`npm:/${name}@`) || s.startsWith(`npm:${name}@`)) wrong.push(`${name}: ${chain(loaded, s)}`);
    }
  }
  for (const name of NPM_MAIN) {
    for (const s of loaded.keys()) {
      if (new RegExp(`^npm:/?${name}@[^/]+$`).test(s)) wrong.push(`${name} (main entry): ${chain(loaded, s)}`);
    }
  }
  assert.deepEqual(wrong, [], `statically imported on the start path:\n${wrong.join("\n")}`);
});

Deno.test("the closure follows static imports and stops at dynamic and type-only ones", () => {
  const graph: Graph = {
    roots: ["file:///a.ts"],
    redirects: { "npm:x@1": "npm:/x@1" },
    modules: [
      {
        specifier: "file:///a.ts",
        dependencies: [
          { code: { specifier: "file:///b.ts" } },
          { code: { specifier: "file:///lazy.ts" }, isDynamic: true },
          {}, // a type-only import: no `code`
        ],
      },
      { specifier: "file:///b.ts", dependencies: [{ code: { specifier: "npm:x@1" } }] },
      { specifier: "file:///lazy.ts", dependencies: [{ code: { specifier: "file:///c.ts" } }] },
    ],
  };
  const loaded = staticClosure(graph);
  assert.deepEqual([...loaded.keys()].sort(), ["file:///a.ts", "file:///b.ts", "npm:/x@1"]);
  assert.equal(chain(loaded, "npm:/x@1"), "npm:/x@1 ← file:///b.ts ← file:///a.ts");
});
