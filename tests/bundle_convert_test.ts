/**
 * The bundle built outside the checkout, as the systemd unit builds it
 * (`deno task cache --out /var/cache/chorus/build`), run with the start
 * task's flags from a directory outside the checkout: its launcher's own
 * configuration (`deno.jsonc`, deploy/bundle_launcher.ts) lets the one
 * script that runs from the sources, the PGlite converter's worker, find
 * its package. An old PGlite data directory is converted on the first start.
 */
import { equal, ok } from "node:assert/strict";
import { writeOldPgliteStore } from "../src/persistence/backends/old_pglite_store_test_util.ts";
import { freePort, spawnServer } from "./support/child_server.ts";

const ROOT = new URL("..", import.meta.url).pathname;

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
    await writeOldPgliteStore(`${tmp}/data`);
    const server = spawnServer({
      port: await freePort(),
      dataDir: `${tmp}/data`,
      upstream: "http://127.0.0.1:9",
      script: `${tmp}/build/start.js`,
      cwd: tmp,
    });
    try {
      await server.ready;
      ok(server.lines.some((l) => /converted the PGlite store to SQLite.* rows=\d+/.test(l)), server.lines.join("\n"));
    } finally {
      server.child.kill("SIGTERM");
      await server.child.status;
      await server.done;
    }
    ok((await Deno.stat(`${tmp}/data/chorus.sqlite`)).isFile);
    ok((await Deno.stat(`${tmp}/data/pglite.converted`)).isDirectory);
    equal(server.lines.some((l) => /not a dependency|Uncaught/.test(l)), false, server.lines.join("\n"));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
