/**
 * Two servers on one PostgreSQL database (issue 5 "Durable persistence";
 * extended.md §6): each data_dir numbers its journal itself, so a second
 * server is refused by the database's owner lock, and a data_dir whose
 * journal the database does not count is refused by the journal identity.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { defaultConfig } from "../src/config/mod.ts";
import { openPersistence } from "../src/persistence/mod.ts";
import { PostgresDb } from "../src/persistence/backends/postgres_db.ts";
import { OWNER_LOCK_KEY } from "../src/persistence/backends/postgres_owner_lock.ts";
import { dropTestDatabase, testDatabaseUrl } from "../src/db/test_db_test_util.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";

const base = Deno.env.get("PM_TEST_DATABASE_URL");
const why = "PM_TEST_DATABASE_URL unset";

Deno.test({
  name: base ? "two servers on one PostgreSQL database" : `two servers on one PostgreSQL database (skipped: ${why})`,
  ignore: !base,
  async fn(t) {
    const url = testDatabaseUrl(base!, "owner");
    const database = new URL(url).pathname.slice(1);
    const clock = new ManualClock();
    const log = new LogHub({ level: "debug", sink: () => {} }).logger();
    const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
    const open = (dataDir: string) =>
      openPersistence({ config: { ...defaultConfig(), data_dir: dataDir, database_url: url }, clock, log });
    try {
      await t.step("the second is refused with a message naming the database; nothing is lost", async () => {
        const a = await open(dirs[0]!);
        await assert.rejects(open(dirs[1]!), (e: Error & { code?: string }) => {
          assert.equal(e.code, "locked");
          assert.ok(e.message.startsWith(`Cannot use the PostgreSQL database "${database}" on 127.0.0.1:5432: `));
          assert.match(e.message, /another Chorus server \(database backend \d+ from 127\.0\.0\.1, connected since /);
          assert.match(e.message, /give this one its own database_url/);
          return true;
        });
        for (let i = 0; i < 20; i++) a.setSetting(`a${i}`, i);
        await a.stop();
        // The first has stopped: the second (an empty data_dir) takes the database over and continues its sequence.
        const b = await open(dirs[1]!);
        for (let i = 0; i < 20; i++) b.setSetting(`b${i}`, i);
        await b.flush();
        const [row] = await b.store.db.query("SELECT COUNT(*) AS n FROM settings");
        assert.equal(row!.n, 40, "every record of both servers is stored");
        await b.stop();
      });

      await t.step("the first data_dir is refused now: its journal is not the one the database counts", async () => {
        await assert.rejects(open(dirs[0]!), (e: Error & { code?: string }) => {
          assert.equal(e.code, "journal_identity");
          assert.match(e.message, new RegExp(`is not the journal of the PostgreSQL database "${database}" on `));
          return true;
        });
      });

      await t.step("a lost owner lock is taken again at the heartbeat, unless another server has it", async () => {
        const logs = new LogHub({ level: "debug", sink: () => {} });
        const db = await PostgresDb.open(url, logs.logger());
        const admin = postgres(url, { max: 1, onnotice: () => {} });
        const holder = async () =>
          (await admin.unsafe(
            // Advisory locks are per database: other tests hold the same key on their own databases.
            `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = ${OWNER_LOCK_KEY} AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          ))[0]?.pid as number | undefined;
        /** Waits (bounded: 10 s, for a loaded CI machine) for the database server or the client to catch up. */
        const until = async (what: string, ok: () => boolean | Promise<boolean>) => {
          for (let i = 0; i < 500; i++) {
            if (await ok()) return;
            await new Promise((r) => setTimeout(r, 20));
          }
          assert.fail(`timed out waiting until ${what}`);
        };
        try {
          await db.lockOwner(logs.logger());
          const first = await holder();
          assert.ok(first);
          const adminPid = (await admin.unsafe("SELECT pg_backend_pid() AS pid"))[0]!.pid as number;
          await admin.unsafe(`SELECT pg_terminate_backend(${first})`);
          await until("the client noticed", () => logs.history().some((r) => r.msg.startsWith("lost the owner lock")));
          // Another server takes the lock meanwhile: the heartbeat says so and does not pretend to hold it.
          await admin.unsafe(`SELECT pg_advisory_lock(${OWNER_LOCK_KEY})`);
          await db.keepOwnerLock();
          const refused = logs.history().find((r) => r.msg.startsWith("another server took the database over"));
          assert.match(String(refused?.fields.detail), new RegExp(`database backend ${adminPid} `));
          assert.equal(await holder(), adminPid);
          // It lets go: the next heartbeat takes the lock again, on a new connection.
          await admin.unsafe(`SELECT pg_advisory_unlock(${OWNER_LOCK_KEY})`);
          await db.keepOwnerLock();
          const again = await holder();
          assert.ok(again !== undefined && again !== first && again !== adminPid);
          assert.ok(logs.history().some((r) => r.msg === "owner lock of the database taken again"));
        } finally {
          await admin.end({ timeout: 1 });
          await db.close();
        }
        // Closing released it.
        const other = await PostgresDb.open(url, log);
        await other.lockOwner(log);
        await other.close();
      });
    } finally {
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
      await dropTestDatabase(url);
    }
  },
});
