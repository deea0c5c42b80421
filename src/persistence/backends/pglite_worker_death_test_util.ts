/**
 * Scenarios of embedded-database workers that die (tests), run one per
 * child process by `pglite_worker_db_test.ts`: Deno prints a worker's
 * uncaught error to stderr even when the host handles it, and these deaths
 * are on purpose, so they go to the child's stderr, which the test checks,
 * instead of reading like failures in the test output.
 *
 *   deno run --allow-read --allow-write --allow-env pglite_worker_death_test_util.ts <scenario>
 *
 * Prints `ok` when every assertion held.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { PgliteWorkerDb, RESPAWN_MIN_MS, WorkerStartError } from "./pglite_worker_db.ts";
import { isTransientDbError } from "./sql_db.ts";

/** The scenarios by name, with what each checks. */
export const SCENARIOS: Record<string, { readonly what: string; readonly run: () => Promise<void> }> = {
  "dies": {
    what: "a worker that dies fails calls as transient; one that cannot load says so",
    async run() {
      const db = await PgliteWorkerDb.open({
        workerUrl: new URL("./pglite_worker_crash_test_util.ts", import.meta.url),
      });
      await assert.rejects(db.query("SELECT 1"), (e: Error & { code?: string }) => {
        assert.match(e.message, /^Cannot use the embedded database: .*wasm trap/);
        assert.equal(e.code, "CONNECTION_CLOSED");
        assert.equal(isTransientDbError(e), true, "records wait in the journal; the game goes on");
        return true;
      });
      await assert.rejects(db.exec("SELECT 1"), /wasm trap/, "later calls fail the same way");
      await db.close();
      await assert.rejects(
        PgliteWorkerDb.open({ workerUrl: new URL("./no_such_worker.ts", import.meta.url) }),
        WorkerStartError,
      );
    },
  },
  "replaced": {
    what: "a dead worker is replaced after a back-off, on the same directory",
    async run() {
      const dir = await Deno.makeTempDir();
      const clock = new ManualClock();
      const logs = new LogHub({ level: "debug", sink: () => {} });
      const db = await PgliteWorkerDb.open({
        dir: `${dir}/pg`,
        workerUrl: new URL("./pglite_worker_flaky_test_util.ts", import.meta.url),
        clock,
        log: logs.logger(),
      });
      try {
        await db.exec("CREATE TABLE kept (v INT); INSERT INTO kept VALUES (42)");
        await assert.rejects(
          db.query("SELECT 'crash'"),
          (e: Error) => isTransientDbError(e) && /wasm trap/.test(e.message),
        );
        // Within the back-off: still unavailable (transient), and says when it tries again.
        await assert.rejects(db.query("SELECT v FROM kept"), (e: Error) => {
          assert.equal(isTransientDbError(e), true);
          assert.match(e.message, new RegExp(`wasm trap: unreachable; a new worker starts in ${RESPAWN_MIN_MS} ms$`));
          return true;
        });
        assert.equal(db.respawns, 0);
        clock.advance(RESPAWN_MIN_MS);
        assert.deepEqual(await db.query("SELECT v FROM kept"), [{ v: 42 }], "the new worker has the committed rows");
        assert.equal(db.respawns, 1);
        assert.deepEqual(
          logs.history().map((r) => r.msg).filter((m) => m.includes("worker")),
          ["the embedded database's worker died; starting a new one", "the embedded database's new worker is running"],
        );
        // It can die again and come back again.
        await assert.rejects(db.query("SELECT 'crash'"), /wasm trap/);
        clock.advance(RESPAWN_MIN_MS);
        await assert.rejects(
          db.query("SELECT 1"),
          /a new worker starts in 250 ms$/,
          "dying soon after a start doubles the wait",
        );
        clock.advance(RESPAWN_MIN_MS);
        await db.transaction((tx) => tx.query("INSERT INTO kept VALUES (43)"));
        assert.deepEqual(await db.query("SELECT v FROM kept ORDER BY v"), [{ v: 42 }, { v: 43 }]);
        assert.equal(db.respawns, 2);
      } finally {
        await db.close();
        await Deno.remove(dir, { recursive: true });
      }
      await assert.rejects(db.query("SELECT 1"), /it is closed/, "a closed database is not started again");
    },
  },
  "keeps-dying": {
    what: "workers that keep dying are started again ever more slowly",
    async run() {
      const clock = new ManualClock();
      // The crash util answers `open` and dies at the next request, every time: each new worker dies too.
      const db = await PgliteWorkerDb.open({
        workerUrl: new URL("./pglite_worker_crash_test_util.ts", import.meta.url),
        clock,
      });
      try {
        await assert.rejects(db.query("SELECT 1"), /wasm trap/);
        clock.advance(RESPAWN_MIN_MS);
        await assert.rejects(db.query("SELECT 1"), /wasm trap/, "the new worker started, then died at the query");
        assert.equal(db.respawns, 1);
        await assert.rejects(db.query("SELECT 1"), new RegExp(`starts in ${2 * RESPAWN_MIN_MS} ms$`));
        clock.advance(2 * RESPAWN_MIN_MS);
        await assert.rejects(db.query("SELECT 1"), /wasm trap/);
        await assert.rejects(db.query("SELECT 1"), new RegExp(`starts in ${4 * RESPAWN_MIN_MS} ms$`));
        assert.equal(db.respawns, 2);
      } finally {
        await db.close();
      }
    },
  },
  "not-created": {
    what: "a worker that cannot even be created is a transient failure with a back-off",
    async run() {
      const clock = new ManualClock();
      let creatable = true;
      let attempts = 0;
      const crashUrl = new URL("./pglite_worker_crash_test_util.ts", import.meta.url);
      // Stands in for `new Worker` throwing at once (out of threads or memory): the URL is read right before it.
      const options = {
        clock,
        get workerUrl(): URL {
          attempts++;
          if (!creatable) throw new TypeError("Cannot create a worker: out of resources");
          return crashUrl;
        },
      };
      const db = await PgliteWorkerDb.open(options);
      try {
        await assert.rejects(db.query("SELECT 1"), /wasm trap/);
        creatable = false;
        clock.advance(RESPAWN_MIN_MS);
        const before = attempts;
        await assert.rejects(db.query("SELECT 1"), (e: Error) => {
          assert.equal(isTransientDbError(e), true, "records wait in the journal instead of being dead-lettered");
          assert.match(e.message, /out of resources/);
          return true;
        });
        assert.equal(attempts, before + 1);
        await assert.rejects(db.query("SELECT 1"), new RegExp(`starts in ${2 * RESPAWN_MIN_MS} ms$`));
        assert.equal(attempts, before + 1, "no new attempt before the back-off is over");
      } finally {
        await db.close();
      }
    },
  },
};

if (import.meta.main) {
  const scenario = SCENARIOS[Deno.args[0] ?? ""];
  if (!scenario) throw new TypeError(`usage: <${Object.keys(SCENARIOS).join("|")}>`);
  await scenario.run();
  console.log("ok");
}
