/**
 * One behaviour suite for every {@link Db} backend (run by `db_test.ts` on
 * SQLite in memory, on an SQLite file and, when `PM_TEST_DATABASE_URL` is
 * set, on PostgreSQL).
 *
 * @module
 */

import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { migrate, type Migration } from "./migrate.ts";
import { type Db, dbBool, DbError, dbNum } from "./types.ts";

const STEPS: readonly Migration[] = [
  {
    version: 1,
    up:
      `CREATE TABLE suite_items (id {{id}}, name TEXT NOT NULL UNIQUE, blob {{bytes}}, active BOOLEAN NOT NULL DEFAULT TRUE, at BIGINT)`,
  },
  {
    version: 2,
    up: {
      sqlite: "ALTER TABLE suite_items ADD COLUMN note TEXT DEFAULT 'none'",
      postgres: "ALTER TABLE suite_items ADD COLUMN note TEXT DEFAULT 'none'",
    },
  },
];

/** Runs the suite on a fresh, empty database made by `open`. */
export async function dbSuite(t: Deno.TestContext, open: () => Promise<Db>): Promise<void> {
  const db = await open();
  try {
    await t.step("migrations run once and record the version", async () => {
      equal(await migrate(db, "suite", STEPS), 2);
      equal(await migrate(db, "suite", STEPS), 2);
      const rows = await db.query("SELECT version FROM chorus_schema WHERE component = $1", ["suite"]);
      equal(dbNum(rows[0]?.version), 2);
    });

    await t.step("a database newer than the code is refused", async () => {
      await rejects(
        migrate(db, "suite", STEPS.slice(0, 1)),
        (e: unknown) => e instanceof DbError && /newer/.test(e.message),
      );
    });

    await t.step("parameters: repeated, out of order, booleans, bytes, big numbers, null", async () => {
      const bytes = new Uint8Array([0, 1, 255]);
      const [row] = await db.query(
        "INSERT INTO suite_items (name, blob, active, at) VALUES ($2, $3, $1, $4) RETURNING id, name, active, at, note",
        [false, "a", bytes, 1_700_000_000_123],
      );
      ok(row);
      equal(row.name, "a");
      equal(dbBool(row.active), false);
      equal(dbNum(row.at), 1_700_000_000_123);
      equal(row.note, "none");
      const [again] = await db.query("SELECT blob, $1 AS echo FROM suite_items WHERE name = $1 AND name = $1", ["a"]);
      deepEqual(new Uint8Array(again?.blob as Uint8Array), bytes);
      equal(again?.echo, "a");
      await db.query("INSERT INTO suite_items (name, at) VALUES ($1, $2)", ["nul", null]);
      const [nul] = await db.query("SELECT at FROM suite_items WHERE name = $1", ["nul"]);
      equal(nul?.at, null);
    });

    await t.step("a '$1' inside a string literal is text, not a parameter", async () => {
      const [row] = await db.query("SELECT '$1 costs' AS s, $1 AS p", ["x"]);
      equal(row?.s, "$1 costs");
      equal(row?.p, "x");
    });

    await t.step("ids increase; ON CONFLICT upserts", async () => {
      const [b] = await db.query<{ id: number }>("INSERT INTO suite_items (name) VALUES ($1) RETURNING id", ["b"]);
      const [c] = await db.query<{ id: number }>("INSERT INTO suite_items (name) VALUES ($1) RETURNING id", ["c"]);
      ok(dbNum(c?.id) > dbNum(b?.id));
      await db.query(
        "INSERT INTO suite_items (name, at) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET at = excluded.at",
        ["b", 5],
      );
      const [row] = await db.query("SELECT at FROM suite_items WHERE name = $1", ["b"]);
      equal(dbNum(row?.at), 5);
    });

    await t.step("a transaction commits when it resolves and rolls back when it throws", async () => {
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO suite_items (name) VALUES ($1)", ["t1"]);
      });
      await rejects(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO suite_items (name) VALUES ($1)", ["t2"]);
          throw new Error("boom");
        }),
        /boom/,
      );
      const names = (await db.query("SELECT name FROM suite_items WHERE name IN ($1, $2)", ["t1", "t2"])).map((r) =>
        r.name
      );
      deepEqual(names, ["t1"]);
    });

    await t.step("statements outside a transaction never land inside it", async () => {
      const { promise: inside, resolve: entered } = Promise.withResolvers<void>();
      const { promise: gate, resolve: open } = Promise.withResolvers<void>();
      const tx = db.transaction(async (q) => {
        await q.query("INSERT INTO suite_items (name) VALUES ($1)", ["tx-a"]);
        entered();
        await gate;
        throw new Error("rolled back");
      });
      await inside;
      const outside = db.query("INSERT INTO suite_items (name) VALUES ($1)", ["outside"]);
      open();
      await rejects(tx, /rolled back/);
      await outside;
      const names = (await db.query("SELECT name FROM suite_items WHERE name IN ($1, $2)", ["tx-a", "outside"])).map((
        r,
      ) => r.name);
      deepEqual(names, ["outside"]);
    });

    await t.step("a failing statement rejects with the database's reason", async () => {
      await rejects(db.query("INSERT INTO suite_items (name) VALUES ($1)", ["a"]), /unique|UNIQUE/);
    });
  } finally {
    await db.close();
  }
}
