/**
 * The bundle `deno task start` runs (`deno task cache`, `deploy/bundle.ts`;
 * the test task runs the cache task first): it is the build of these
 * sources, it knows where they are, its dynamic imports load on demand,
 * and its worker scripts run. The server itself is started from it by
 * every process test that starts `start` (`tests/support/child_server.ts`).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { bundleInputs, bundleStamp, parseBundleArgs } from "../deploy/bundle.ts";
import { launcherText, startBuiltins } from "../deploy/bundle_launcher.ts";
import { TEST_ARGON2 } from "../src/net/argon2.ts";
import { FIELDS, OP, type Results } from "../src/replay/io_protocol.ts";
import { denoTasks, runTask } from "../src/util/deno_tasks.ts";
import { BUNDLED, BUNDLED_WORKERS, PROGRAM_ROOT, workerBundleName, workerScript } from "../src/util/program_files.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const script = runTask(denoTasks(Deno.readTextFileSync(`${ROOT}deno.json`)), "start").script;

/** The directory of the build the start task's launcher runs; fails when it is not the build of these sources. */
async function currentBuild(): Promise<string> {
  const stamp = await bundleStamp(ROOT);
  const launcher = await Deno.readTextFile(`${ROOT}${script}`).catch(() => "");
  const build = `${ROOT}build/${stamp}`;
  equal(
    launcher,
    launcherText(stamp, startBuiltins(build), PROGRAM_ROOT.href),
    "the launcher runs the build of these sources (deno task cache)",
  );
  return build;
}

function reply<T>(worker: Worker, message: unknown, transfer: Transferable[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (e) => resolve(e.data as T);
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message));
    };
    worker.postMessage(message, transfer);
  });
}

Deno.test("the sources run unbundled; their worker scripts and files are found from the repository root", () => {
  equal(BUNDLED, false);
  equal(PROGRAM_ROOT.pathname, ROOT);
  equal(workerScript("src/replay/io_worker.ts").pathname, `${ROOT}src/replay/io_worker.ts`);
  // In a bundle, the bundled workers sit beside its modules; the converter's stays a source.
  match(workerScript("src/replay/io_worker.ts", true).pathname, /\/src\/util\/io_worker\.js$/);
  equal(
    workerScript("src/persistence/backends/pglite_convert_worker.ts", true).pathname,
    `${ROOT}src/persistence/backends/pglite_convert_worker.ts`,
  );
  equal(workerBundleName("src/accounts/password_worker.ts"), "password_worker.js");
});

Deno.test("deno task cache arguments and inputs: --frozen, --out; tests do not change a build", () => {
  deepEqual(parseBundleArgs([]), { out: "build", frozen: false });
  deepEqual(parseBundleArgs(["--frozen", "--out", "/var/cache/chorus/build/"]), {
    out: "/var/cache/chorus/build",
    frozen: true,
  });
  deepEqual(parseBundleArgs(["--out=x"]), { out: "x", frozen: false });
  let error = "";
  try {
    parseBundleArgs(["--fast"]);
  } catch (e) {
    error = (e as Error).message;
  }
  match(error, /unknown argument --fast/);
  const inputs = bundleInputs(ROOT);
  for (
    const f of ["main.ts", "deno.json", "deno.lock", "deploy/bundle.ts", "src/util/program_files.ts", "legacy/app.ts"]
  ) {
    ok(inputs.includes(f), f);
  }
  ok(!inputs.some((f) => f.endsWith("_test.ts")), "tests are not inputs");
});

Deno.test("the bundle holds the sources' root, loads its dynamic imports on demand, and maps back to the sources", async () => {
  const build = await currentBuild();
  const modules = (await Array.fromAsync(Deno.readDir(build), (e) => e.name)).filter((n) => n.endsWith(".js"));
  for (const w of BUNDLED_WORKERS) ok(modules.includes(workerBundleName(w)), w);
  let roots = 0;
  let ours = 0;
  for (const name of modules) {
    const code = await Deno.readTextFile(`${build}/${name}`);
    equal(code.includes("@@CHORUS_SOURCES_ROOT@@"), false, name);
    equal(/\bimport\("\.\//.test(code), false, `${name}: a literal sibling import would load at start`);
    if (code.includes(JSON.stringify(PROGRAM_ROOT.href))) roots++;
    const map = JSON.parse(await Deno.readTextFile(`${build}/${name}.map`)) as { sources: string[] };
    equal("sourcesContent" in map, false, `${name}.map keeps only paths and mappings`);
    ours += map.sources.filter((s) => new URL(s, `file://${build}/`).pathname.startsWith(`${ROOT}src/`)).length;
  }
  ok(roots > 0, "the root is written into the bundle");
  // The game server's built-ins come first from the launcher (bundle_launcher.ts): its store and its game port.
  const builtins = startBuiltins(build);
  for (const b of ["node:sqlite", "node:net", "node:http"]) ok(builtins.includes(b), `${b} in ${builtins}`);
  ok(ours > 300, `stack traces map to our sources (${ours} of them in the maps)`);
});

Deno.test("the bundled worker scripts run: the store's thread, the file thread, the password hasher", async () => {
  const build = await currentBuild();
  const dir = await Deno.makeTempDir({ prefix: "chorus-bundle-" });
  const start = (name: string) => new Worker(new URL(`file://${build}/${name}`), { type: "module" });
  const workers: Worker[] = [];
  try {
    const store = start("sqlite_thread_worker.js");
    workers.push(store);
    deepEqual(await reply(store, { t: "open", path: `${dir}/t.sqlite`, busyTimeoutMs: 1000, periodMs: 60_000 }), {
      t: "ready",
    });
    deepEqual(await reply(store, { t: "stop" }), { t: "stopped" });

    const files = start("io_worker.js");
    workers.push(files);
    const nums = new Float64Array(FIELDS);
    nums.set([7, OP.mkdir, 0, 0, 0, 0]);
    const bytes = new ArrayBuffer(0);
    const done = await reply<Results>(files, { count: 1, nums: nums.buffer, bytes, paths: [`${dir}/made`] }, [
      nums.buffer,
    ]);
    deepEqual(done, { ok: [7], failed: [] });
    ok((await Deno.stat(`${dir}/made`)).isDirectory);

    const hasher = start("password_worker.js");
    workers.push(hasher);
    const hashed = await reply<{ id: number; result: string }>(hasher, {
      id: 3,
      op: "hash",
      password: "correct horse",
      params: TEST_ARGON2,
    });
    equal(hashed.id, 3);
    match(hashed.result, /^\$argon2id\$/);
  } finally {
    for (const w of workers) w.terminate();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two deno task cache at once into a new directory (parallel starts) both succeed and agree", async () => {
  const out = await Deno.makeTempDir({ prefix: "chorus-build-" });
  try {
    const run = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["task", "-q", "cache", "--out", out],
        cwd: ROOT,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    const [a, b] = await Promise.all([run(), run()]);
    ok(a.success, new TextDecoder().decode(a.stderr));
    ok(b.success, new TextDecoder().decode(b.stderr));
    const stamp = await bundleStamp(ROOT);
    equal(
      await Deno.readTextFile(`${out}/start.js`),
      launcherText(stamp, startBuiltins(`${out}/${stamp}`), PROGRAM_ROOT.href),
    );
    // One build, no temporary directory left behind.
    deepEqual(
      (await Array.fromAsync(Deno.readDir(out), (e) => e.name)).toSorted(),
      ["deno.jsonc", stamp, "start.js"].toSorted(),
    );
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
