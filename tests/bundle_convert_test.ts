/**
 * The bundle built outside the checkout, as the systemd unit builds it
 * (`deno task cache --out /var/cache/chorus/build`), run with the start
 * task's flags from a directory outside the checkout: its launcher's own
 * configuration (`deno.jsonc`, deploy/bundle_launcher.ts) lets the one
 * script that runs from the sources, the PGlite converter's worker, find
 * its package. An old PGlite data directory is converted on the first start.
 */
import { equal, ok } from "node:assert/strict";
import { LogHub } from "../src/util/log.ts";
import { Store } from "../src/persistence/apply/store.ts";
import { migrate } from "../src/persistence/backends/migrations.ts";
import { PgliteDb } from "../src/persistence/backends/pglite_db.ts";
import { denoTasks, runTask } from "../src/util/deno_tasks.ts";
import { freePort, watchOutput } from "./support/child_server.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const T0 = Date.UTC(2026, 0, 1);

/** A data directory whose store is still in PGlite (`pglite/`), with one setting in it. */
async function oldDataDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const log = new LogHub({ level: "error", sink: () => {} }).logger();
  const pg = await PgliteDb.open(`${dir}/pglite`);
  try {
    await migrate(pg, log, T0);
    const store = new Store(pg);
    await store.bindJournal("journal-1", null, T0);
    await store.applyBatch([{ seq: 1, entry: { t: "setting", key: "motd", value: "hello", at: T0 } }] as never, 1, T0);
    await pg.checkpoint();
  } finally {
    await pg.close();
  }
}

Deno.test("a bundle built outside the checkout converts an old PGlite store on its first start", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "chorus-outbuild-" });
  try {
    const cache = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "cache", "--out", `${tmp}/build`],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    ok(cache.success, new TextDecoder().decode(cache.stderr));
    await oldDataDir(`${tmp}/data`);
    const { flags } = runTask(denoTasks(await Deno.readTextFile(`${ROOT}deno.json`)), "start");
    const port = await freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, `${tmp}/build/start.js`, "start", "--port", String(port), "--http-port", "0"].concat(
        ["--bind-address", "127.0.0.1", "--game-api-endpoint", "http://127.0.0.1:9", "--log-level", "info"],
      ),
      cwd: tmp,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const out = watchOutput(child);
    try {
      await Promise.race([
        out.waitFor(/ configuration: .*; stop with /),
        out.done.then(() => {
          throw new Error(`the server exited:\n${out.lines.join("\n")}`);
        }),
      ]);
      ok(out.lines.some((l) => /converted the PGlite store to SQLite.* rows=\d+/.test(l)), out.lines.join("\n"));
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await out.done;
    }
    ok((await Deno.stat(`${tmp}/data/chorus.sqlite`)).isFile);
    ok((await Deno.stat(`${tmp}/data/pglite.converted`)).isDirectory);
    equal(out.lines.some((l) => /not a dependency|Uncaught/.test(l)), false, out.lines.join("\n"));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
