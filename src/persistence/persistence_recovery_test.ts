import assert from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { flip, recordOffsets } from "./journal/corruption_test_util.ts";
import { Journal } from "./journal/journal.ts";
import { JOURNAL_ID_FILE } from "./journal/identity.ts";
import { openPersistence } from "./persistence.ts";
import { SqliteStoreDb } from "./backends/sqlite_store_db.ts";

/** Flips a body bit of record `index` (from the end when negative) of the journal's last segment; its sequence. */
async function damageBody(dataDir: string, index: number): Promise<void> {
  const dir = `${dataDir}/journal`;
  const names = (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).filter((n) => n.endsWith(".wal")).sort();
  const path = `${dir}/${names.at(-1)}`;
  const bytes = await Deno.readFile(path);
  const offsets = recordOffsets(bytes);
  await Deno.writeFile(path, flip(bytes, offsets.at(index)! + 30));
}

Deno.test("startup and journal damage: the database's applied sequence decides what is needed", async (t) => {
  const db = SqliteStoreDb.open(":memory:");
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const log = logs.logger();
  const clock = new ManualClock();
  const dataDir = await Deno.makeTempDir();
  const config = { ...defaultConfig(), data_dir: dataDir };
  try {
    await t.step("damage the database already applied does not refuse the start", async () => {
      const p = await openPersistence({ config, clock, log, db: db });
      for (let i = 0; i < 8; i++) p.setSetting(`k${i}`, i);
      await p.flush();
      await p.stop();
      await damageBody(dataDir, 3);
      const again = await openPersistence({ config, clock, log, db: db });
      assert.equal(again.status().counters.damaged_already_applied, 1);
      assert.ok(
        logs.history().some((r) => r.msg === "journal: dropped damaged bytes whose records the database already holds"),
      );
      assert.equal(again.getSetting("k7"), 7);
      await again.stop();
    });

    await t.step("damage in records the database does not have refuses it, naming them", async () => {
      const journal = await Journal.open({ dir: `${dataDir}/journal`, clock, log });
      const first = journal.lastSeq + 1;
      for (let i = 0; i < 5; i++) journal.append({ t: "setting", key: `late${i}`, value: i, at: i });
      await journal.close();
      await damageBody(dataDir, -3);
      await assert.rejects(openPersistence({ config, clock, log, db: db }), (e: Error & { code?: string }) => {
        assert.equal(e.code, "journal_corrupt");
        assert.match(e.message, new RegExp(`\\(body checksum mismatch\\): sequence ${first + 2}\\n`));
        return true;
      });
      // The operator accepts the loss for one start: the other records are applied.
      const skipped = await openPersistence({
        config: { ...config, journal_damaged_records: "skip" },
        clock,
        log,
        db: db,
      });
      assert.equal(skipped.status().counters.damaged_skipped, 1);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((i) => skipped.getSetting(`late${i}`)),
        [0, 1, undefined, 3, 4],
      );
      await skipped.stop();
    });

    await t.step("a journal the database does not count gets no benefit of its applied sequence", async () => {
      const p = await openPersistence({ config, clock, log, db: db });
      p.setSetting("x", 1);
      await p.flush();
      await p.stop();
      await damageBody(dataDir, -2);
      const id = `${dataDir}/journal/${JOURNAL_ID_FILE}`;
      const ours = await Deno.readTextFile(id);
      await Deno.writeTextFile(id, crypto.randomUUID());
      await assert.rejects(openPersistence({ config, clock, log, db: db }), /Cannot recover the journal/);
      await Deno.writeTextFile(id, ours);
      const again = await openPersistence({ config, clock, log, db: db });
      await again.stop();
    });
  } finally {
    await db.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
