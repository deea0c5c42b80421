/**
 * What persistence tells the operator when the disk fails (issue 14
 * "Diagnostics"): a full disk is one ERROR line and then a count per
 * interval, not one line per record; creating the embedded database on a
 * full disk says what failed instead of `[object Object]`.
 */
import assert from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { faultyJournalFiles } from "./journal/faults_test_util.ts";
import { openStore } from "./backends/open_store.ts";
import { openPersistence } from "./persistence.ts";
import { SqliteStoreDb } from "./backends/sqlite_store_db.ts";

Deno.test("a full disk logs the first failed journal write, then a count per interval, and nothing is lost", async () => {
  const db = SqliteStoreDb.open(":memory:");
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const clock = new ManualClock();
  const dataDir = await Deno.makeTempDir();
  const { faults, open: openJournalFile } = faultyJournalFiles();
  const p = await openPersistence({
    config: { ...defaultConfig(), data_dir: dataDir },
    clock,
    log: logs.logger(),
    db: db,
    openJournalFile,
  });
  try {
    faults.failWrites = true;
    for (let i = 0; i < 2000; i++) p.setSetting(`k${i}`, i);
    const failed = () => logs.history().filter((r) => r.msg.startsWith("journal write failed"));
    assert.equal(failed().length, 1, "one line for 2,000 failed records");
    assert.match(String(failed()[0]!.fields?.error), /No space left on device/);
    clock.advance(10_000);
    p.setSetting("later", 1);
    assert.equal(failed().length, 2);
    assert.deepEqual([failed()[1]!.msg, failed()[1]!.fields?.failures], [
      "journal write failed; the record is kept in memory and applied to the store (still failing)",
      2000,
    ]);
    faults.failWrites = false;
    p.setSetting("after", 1);
    const back = logs.history().find((r) => r.msg === "journal writes work again");
    assert.equal(back?.fields?.failures_total, 2001);
    await p.flush();
    assert.equal(p.getSetting("k1999"), 1999);
    const [row] = await db.query("SELECT value FROM settings WHERE key = 'k1999'");
    assert.equal(row?.value, 1999, "records of the full disk reached the store from memory");
    assert.equal(p.status().counters.journal_write_failures_total, 2001);
  } finally {
    await p.stop();
    await db.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test({
  name: "creating the embedded database on a full disk says what failed and what to do",
  // Needs root to mount a small tmpfs (as the journal's full-disk test).
  ignore: !canMount(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const mount = new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir] });
    assert.equal((await mount.output()).code, 0);
    try {
      // Room for data_dir's write probe and a few pages, not for the schema.
      await Deno.mkdir(`${dir}/data`);
      await Deno.writeFile(`${dir}/filler`, new Uint8Array(1024 * 1024 - 16 * 1024));
      const log = new LogHub({ level: "error", sink: () => {} }).logger();
      await assert.rejects(openStore({ dataDir: `${dir}/data`, databaseUrl: null, log, now: 0 }), (e: Error) => {
        assert.match(
          e.message,
          new RegExp(
            `^Cannot use the embedded database "${dir}/data/chorus.sqlite": disk I/O error; ` +
              "check that the disk that holds data_dir has free space and works, then start again$",
          ),
        );
        return true;
      });
    } finally {
      await new Deno.Command("umount", { args: ["-l", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

function canMount(): boolean {
  try {
    return Deno.uid() === 0 && Deno.build.os === "linux" && Deno.env.get("CHORUS_NO_MOUNT") === undefined;
  } catch {
    return false;
  }
}
