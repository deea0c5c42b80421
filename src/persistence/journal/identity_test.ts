import assert from "node:assert/strict";
import { defaultConfig } from "../../config/mod.ts";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { Journal } from "./journal.ts";
import { JOURNAL_ID_FILE } from "./identity.ts";
import { openPersistence } from "../persistence.ts";
import { SqliteStoreDb } from "../backends/sqlite_store_db.ts";
import { JournalMismatchError, Store } from "../apply/store.ts";

const quiet = () => new LogHub({ level: "debug", sink: () => {} });
const journalId = async (dir: string) => (await Deno.readTextFile(`${dir}/journal/${JOURNAL_ID_FILE}`)).trim();

/** Journal records written by a server that was killed before applying them. */
async function unapplied(dataDir: string, keys: string[], clock = new ManualClock()): Promise<void> {
  const journal = await Journal.open({ dir: `${dataDir}/journal`, clock, log: quiet().logger() });
  for (const key of keys) journal.append({ t: "setting", key, value: 1, at: 0 });
  await journal.close();
}

Deno.test("journal identity: the database counts one journal; others fail closed", async (t) => {
  const db = SqliteStoreDb.open(":memory:");
  const clock = new ManualClock();
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await Deno.makeTempDir();
    dirs.push(dir);
    return dir;
  };
  const open = (dataDir: string, logs = quiet()) =>
    openPersistence({ config: { ...defaultConfig(), data_dir: dataDir }, clock, log: logs.logger(), db });
  const stored = async () => (await db.query("SELECT journal_id FROM journal_state"))[0]!.journal_id;
  try {
    const a = await fresh();
    await t.step("a new journal gets an identity, and the database records it", async () => {
      const p = await open(a);
      p.setSetting("from-a", 1);
      await p.stop();
      const id = await journalId(a);
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal(await stored(), id);
      const again = await open(a);
      assert.equal(again.getSetting("from-a"), 1, "the same journal opens again");
      await again.stop();
    });

    await t.step("a journal restored from elsewhere is refused and nothing of it is applied", async () => {
      const b = await fresh();
      await Deno.mkdir(`${b}/journal`);
      const elsewhere = crypto.randomUUID();
      await Deno.writeTextFile(`${b}/journal/${JOURNAL_ID_FILE}`, elsewhere + "\n");
      await unapplied(b, ["from-b"]);
      await assert.rejects(open(b), (e: Error & { code?: string }) => {
        assert.equal(e.code, "journal_identity");
        assert.ok(e.message.startsWith(`Cannot start: the journal in "${b}/journal" (identity ${elsewhere}) is not `));
        assert.match(e.message, /counts the sequences of journal [0-9a-f-]{36}\. /);
        assert.match(e.message, /data_dir was restored or copied from another server/);
        return true;
      });
      assert.deepEqual(await db.query("SELECT key FROM settings WHERE key = 'from-b'"), []);
      assert.equal(await stored(), await journalId(a), "the database still belongs to the first journal");
    });

    await t.step("a journal with records but no identity file is refused by a bound database", async () => {
      const c = await fresh();
      await unapplied(c, ["from-c"]);
      await assert.rejects(open(c), /has records but no identity file \(journal\.id\), and the embedded database/);
      assert.deepEqual(await db.query("SELECT key FROM settings WHERE key = 'from-c'"), []);
    });

    await t.step("an empty new journal takes the database over; the old data_dir is refused after", async () => {
      const d = await fresh();
      const logs = quiet();
      const p = await open(d, logs);
      p.setSetting("from-d", 1);
      await p.stop();
      assert.equal(await stored(), await journalId(d));
      const line = logs.history().find((r) => r.msg.startsWith("a new journal takes the database over"));
      assert.equal(line?.fields.previous_journal_id, await journalId(a));
      await assert.rejects(open(a), (e: Error & { code?: string }) => e.code === "journal_identity");
    });

    await t.step("a journal written before identities binds an unbound database and is applied", async () => {
      await db.query("UPDATE journal_state SET journal_id = NULL");
      const e = await fresh();
      const applied = (await db.query("SELECT applied_seq FROM journal_state"))[0]!.applied_seq as number;
      // Continues the database's sequence, as the single data_dir of an older version did.
      const journal = await Journal.open({ dir: `${e}/journal`, clock, log: quiet().logger(), minSeq: applied });
      journal.append({ t: "setting", key: "from-e", value: 5, at: 0 });
      await journal.close();
      const p = await open(e);
      assert.equal(p.getSetting("from-e"), 5);
      await p.stop();
      assert.equal(await stored(), await journalId(e));
    });
  } finally {
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    await db.close();
  }
});

Deno.test("journal identity: a gap between the applied sequence and the journal is warned about", async () => {
  const db = SqliteStoreDb.open(":memory:");
  const dataDir = await Deno.makeTempDir();
  try {
    const clock = new ManualClock();
    const logs = quiet();
    // The journal's first record is 10; the database has applied up to 5: 6..9 are nowhere.
    const journal = await Journal.open({ dir: `${dataDir}/journal`, clock, log: logs.logger(), minSeq: 9 });
    journal.append({ t: "setting", key: "k", value: 1, at: 0 });
    await journal.close();
    const config = { ...defaultConfig(), data_dir: dataDir };
    const first = await openPersistence({ config, clock, log: quiet().logger(), db });
    await first.stop();
    await db.query("UPDATE journal_state SET applied_seq = 5");
    const p = await openPersistence({ config, clock, log: logs.logger(), db });
    await p.stop();
    const line = logs.history().find((r) => r.msg.startsWith("journal: records after the database's applied sequence"));
    assert.deepEqual(
      [line?.level, line?.fields.applied_seq, line?.fields.first_journal_seq, line?.fields.missing],
      ["warn", 5, 10, 4],
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await db.close();
  }
});

Deno.test("journal identity: a database taken over while running makes records wait, not vanish", async () => {
  const db = SqliteStoreDb.open(":memory:");
  const dataDir = await Deno.makeTempDir();
  try {
    const clock = new ManualClock();
    const config = { ...defaultConfig(), data_dir: dataDir };
    const p = await openPersistence({ config, clock, log: quiet().logger(), db });
    const ours = await journalId(dataDir);
    await db.query("UPDATE journal_state SET journal_id = 'someone-else'");
    p.setSetting("waits", 1);
    for (let i = 0; i < 200 && p.status().store_up; i++) await new Promise((r) => setTimeout(r, 0));
    const status = p.status();
    assert.equal(status.store_up, false);
    assert.match(status.last_error ?? "", /database now belongs to journal someone-else, not to this server's journal/);
    assert.equal(status.dead_letters, 0, "nothing is dead-lettered");
    assert.deepEqual(await db.query("SELECT key FROM settings WHERE key = 'waits'"), []);
    // The operator gives the database back: the record is applied after the worker's back-off.
    await db.query("UPDATE journal_state SET journal_id = $1", [ours]);
    clock.advance(200);
    await p.flush();
    assert.deepEqual(await db.query("SELECT key FROM settings WHERE key = 'waits'"), [{ key: "waits" }]);
    await p.stop();

    const store = new Store(db);
    assert.equal(await store.bindJournal("x", "not-the-current-one", 0), false, "binding checks what it replaces");
    assert.equal(await store.bindJournal("j1", ours, 0), true);
    await db.query("UPDATE journal_state SET journal_id = 'j2'");
    await assert.rejects(
      store.applyBatch([{ seq: 1_000, entry: { t: "setting", key: "x", value: 1, at: 0 } }], 1_000, 0),
      JournalMismatchError,
    );
    await assert.rejects(store.deadLetter(1_000, "{}", "boom", 1, 0), JournalMismatchError);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await db.close();
  }
});
