import assert from "node:assert/strict";
import { PgliteWorkerDb, PgliteWorkerError } from "./pglite_worker_db.ts";
import { SCENARIOS } from "./pglite_worker_death_test_util.ts";
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

const DEATHS = new URL("./pglite_worker_death_test_util.ts", import.meta.url).pathname;

/**
 * Runs a scenario of `pglite_worker_death_test_util.ts` in a child process. Deno prints a worker's uncaught error
 * even when the host handles it; these deaths are on purpose, so their traces are checked here (one per death, and
 * nothing else) instead of reading like failures in the test output.
 */
async function deathScenario(name: keyof typeof SCENARIOS, expected: readonly RegExp[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", DEATHS, name],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `${stdout}\n${stderr}`);
  assert.equal(stdout.trim(), "ok");
  const errors = stderr.split("\n").filter((l) => l.startsWith("error: "));
  assert.equal(errors.length, expected.length, stderr);
  expected.forEach((re, i) => assert.match(errors[i]!, re));
}

const TRAP = /^error: Uncaught \(in worker ""\) Error: wasm trap: unreachable$/;

Deno.test("PGlite in a worker that dies (each in a child process, its worker's error trace checked)", async (t) => {
  const cases: [keyof typeof SCENARIOS, RegExp[]][] = [
    ["dies", [TRAP, /^error: Uncaught \(in worker ""\) Module not found ".*no_such_worker\.ts"\.$/]],
    ["replaced", [TRAP, TRAP]],
    ["keeps-dying", [TRAP, TRAP, TRAP]],
    ["not-created", [TRAP]],
  ];
  for (const [name, expected] of cases) await t.step(SCENARIOS[name]!.what, () => deathScenario(name, expected));
});
