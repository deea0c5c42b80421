import assert from "node:assert/strict";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { PgliteWorkerDb, PgliteWorkerError, RESPAWN_MIN_MS, WorkerStartError } from "./pglite_worker_db.ts";
import { isTransientDbError } from "./sql_db.ts";

Deno.test("PGlite in a worker", async (t) => {
  const db = await PgliteWorkerDb.open();
  try {
    await db.exec("CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT, j JSONB)");

    await t.step("returns rows with int8 as numbers and jsonb parsed", async () => {
      await db.query("INSERT INTO t VALUES ($1, $2, $3::text::jsonb)", [9007199254740991, "x", '{"a":[1,2]}']);
      assert.deepEqual(await db.query("SELECT id, v, j FROM t"), [{ id: 9007199254740991, v: "x", j: { a: [1, 2] } }]);
    });

    await t.step("errors keep their SQLSTATE, so permanent and transient failures are told apart", async () => {
      await assert.rejects(db.query("INSERT INTO t VALUES (9007199254740991)"), (e: PgliteWorkerError) => {
        assert.ok(e instanceof PgliteWorkerError);
        assert.equal(e.code, "23505");
        assert.match(e.message, /duplicate key/);
        assert.equal(isTransientDbError(e), false);
        return true;
      });
      await assert.rejects(db.exec("SELEC 1"), (e: PgliteWorkerError) => e.code === "42601");
    });

    await t.step("a transaction commits, or rolls back when its function throws", async () => {
      const out = await db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id, v) VALUES (1, 'a')");
        await tx.exec("INSERT INTO t (id, v) VALUES (2, 'b'); INSERT INTO t (id, v) VALUES (3, 'c')");
        return (await tx.query("SELECT COUNT(*) AS n FROM t"))[0]!.n;
      });
      assert.equal(out, 4);
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query("DELETE FROM t");
          throw new RangeError("changed my mind");
        }),
        RangeError,
      );
      assert.equal((await db.query("SELECT COUNT(*) AS n FROM t"))[0]!.n, 4);
      await assert.rejects(
        db.transaction((tx) => tx.query("INSERT INTO t (id) VALUES (1)")),
        (e: PgliteWorkerError) => e.code === "23505",
      );
      assert.equal((await db.query("SELECT COUNT(*) AS n FROM t"))[0]!.n, 4, "the failed transaction left nothing");
    });

    await t.step("statements from outside wait for a transaction in progress", async () => {
      let inside!: () => void;
      const started = new Promise<void>((resolve) => (inside = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const order: string[] = [];
      const tx = db.transaction(async (tx) => {
        await tx.query("UPDATE t SET v = 'in tx' WHERE id = 1");
        inside();
        await held;
        await tx.query("UPDATE t SET v = 'rolled back' WHERE id = 1");
        order.push("tx done");
        throw new Error("roll back");
      });
      await started;
      const outside = db.query("SELECT v FROM t WHERE id = 1").then((rows) => {
        order.push("outside");
        return rows[0]!.v;
      });
      await new Promise((resolve) => setTimeout(resolve, 0));
      release();
      await assert.rejects(tx, /roll back/);
      assert.equal(await outside, "a", "the outside read ran after the rollback, not inside the transaction");
      assert.deepEqual(order, ["tx done", "outside"]);
    });

    await t.step("a transaction's handle cannot be used once it is over", async () => {
      let kept: { query: (sql: string) => Promise<unknown> } | null = null;
      await db.transaction(async (tx) => {
        kept = tx;
        await tx.query("SELECT 1");
      });
      await assert.rejects(kept!.query("SELECT 1"), /transaction is over/);
    });
  } finally {
    await db.close();
  }
  await assert.rejects(db.query("SELECT 1"), (e: Error) => {
    assert.match(e.message, /it is closed/);
    assert.equal(isTransientDbError(e), false);
    return true;
  });
  await db.close(); // Twice is fine.
});

Deno.test("PGlite in a worker creates a data directory, checkpoints it, and reopens it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = await PgliteWorkerDb.open({ dir: `${dir}/pg` });
    await db.exec("CREATE TABLE kept (v INT); INSERT INTO kept VALUES (42)");
    await db.checkpoint();
    await db.close();
    await Deno.stat(`${dir}/pg/PG_VERSION`);
    const again = await PgliteWorkerDb.open({ dir: `${dir}/pg` });
    assert.deepEqual(await again.query("SELECT v FROM kept"), [{ v: 42 }]);
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("PGlite in a worker: a worker that dies fails calls as transient; one that cannot load says so", async () => {
  const db = await PgliteWorkerDb.open({ workerUrl: new URL("./pglite_worker_crash_test_util.ts", import.meta.url) });
  await assert.rejects(db.query("SELECT 1"), (e: Error & { code?: string }) => {
    assert.match(e.message, /^Cannot use the embedded database: .*wasm trap/);
    assert.equal(e.code, "CONNECTION_CLOSED");
    assert.equal(isTransientDbError(e), true, "records wait in the journal; the game goes on");
    return true;
  });
  await assert.rejects(db.exec("SELECT 1"), /wasm trap/, "later calls fail the same way");
  await db.close();
  await assert.rejects(
    PgliteWorkerDb.open({ workerUrl: new URL("../no_such_worker.ts", import.meta.url) }),
    WorkerStartError,
  );
});

Deno.test("PGlite in a worker: a dead worker is replaced after a back-off, on the same directory", async () => {
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
});

Deno.test("PGlite in a worker: workers that keep dying are started again ever more slowly", async () => {
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
});

Deno.test("PGlite in a worker: a worker that cannot even be created is a transient failure with a back-off", async () => {
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
});
