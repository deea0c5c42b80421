import assert from "node:assert/strict";
import { LogHub } from "../../util/log.ts";
import { Store } from "../apply/store.ts";
import { Queries } from "../queries/queries.ts";
import { openStore } from "./open_store.ts";
import { OLD_STORE_T0, writeOldPgliteStore } from "./old_pglite_store_test_util.ts";

const T0 = OLD_STORE_T0;

function logger() {
  const lines: string[] = [];
  const log = new LogHub({ level: "debug", sink: (line) => lines.push(String(line)) }).logger();
  return { log, lines };
}

/** A data directory as a server before issue 15 left it: its store in PGlite under `pglite/`. */
async function oldDataDir(): Promise<string> {
  const dir = await Deno.makeTempDir();
  await writeOldPgliteStore(dir);
  return dir;
}

Deno.test("an old PGlite store is converted to SQLite on the first start, every row kept", async () => {
  const dir = await oldDataDir();
  try {
    const { log, lines } = logger();
    const opened = await openStore({ dataDir: dir, databaseUrl: null, log, now: T0 });
    try {
      assert.equal(opened.db.backend, "sqlite");
      const q = new Queries(opened.db);
      assert.deepEqual(await q.user(7), {
        user_id: 7,
        name: "P7",
        language: "en-US",
        player: true,
        login_count: 1,
        first_seen_at: T0,
        last_seen_at: T0,
        last_ip: "10.0.0.7",
      });
      const store = new Store(opened.db);
      assert.equal(await store.appliedSeq(), 4);
      assert.equal(await store.journalId(), "journal-1");
      const settings = await opened.db.query("SELECT key, value FROM settings ORDER BY key");
      assert.deepEqual(settings, [{ key: "limits", value: { rooms: 5, on: true } }, { key: "motd", value: "hello" }]);
      assert.deepEqual(await opened.db.query("SELECT user_id, reason FROM user_bans"), [{
        user_id: 9,
        reason: "spam",
      }]);
    } finally {
      await opened.db.close();
      opened.lock.release();
    }
    assert.ok(await Deno.stat(`${dir}/chorus.sqlite`));
    assert.ok(await Deno.stat(`${dir}/pglite.converted/PG_VERSION`), "the old directory is kept, renamed");
    await assert.rejects(Deno.stat(`${dir}/pglite`));
    assert.ok(lines.some((l) => l.includes("converted the PGlite store to SQLite")), lines.join("\n"));
    // The next start opens the file and converts nothing.
    const again = await openStore({ dataDir: dir, databaseUrl: null, log, now: T0 });
    assert.equal(await new Store(again.db).appliedSeq(), 4);
    await again.db.close();
    again.lock.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a PGlite store that cannot be converted refuses the start, names the command and stays as it was", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/pglite`);
    await Deno.writeTextFile(`${dir}/pglite/PG_VERSION`, "17\n"); // A data directory with nothing else in it.
    const { log } = logger();
    await assert.rejects(openStore({ dataDir: dir, databaseUrl: null, log, now: T0 }), (e: Error) => {
      assert.match(e.message, new RegExp(`^Cannot convert the PGlite store in "${dir}/pglite" to SQLite: `));
      assert.match(e.message, /run `deno task convert-store --data-dir ".*"` to convert it/);
      return true;
    });
    assert.equal(await Deno.readTextFile(`${dir}/pglite/PG_VERSION`), "17\n");
    await assert.rejects(Deno.stat(`${dir}/chorus.sqlite`), "no half-converted store is left to open");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a data directory with both an unconverted PGlite store and an SQLite file is refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/pglite`);
    await Deno.writeTextFile(`${dir}/pglite/PG_VERSION`, "17\n");
    await Deno.writeFile(`${dir}/chorus.sqlite`, new Uint8Array());
    const { log } = logger();
    await assert.rejects(
      openStore({ dataDir: dir, databaseUrl: null, log, now: T0 }),
      /holds both "chorus.sqlite" and an unconverted PGlite store "pglite"; move away the one/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("PGlite is loaded only to convert: one module imports it, and that module only on demand", async () => {
  const root = new URL("../../../", import.meta.url).pathname;
  const importers: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".ts") && !/_(test|bench|test_util)\.ts$/.test(e.name)) {
        const text = await Deno.readTextFile(path);
        if (/from "@electric-sql\/pglite"|from "[^"]*pglite_db\.ts"/.test(text)) {
          importers.push(path.slice(root.length));
        }
      }
    }
  };
  for (const dir of ["src", "legacy"]) await walk(`${root}${dir}`);
  assert.deepEqual(importers, ["src/persistence/backends/pglite_db.ts"], "no static import of PGlite elsewhere");
  const convert = await Deno.readTextFile(`${root}src/persistence/backends/pglite_convert.ts`);
  assert.match(convert, /await import\("\.\/pglite_db\.ts"\)/);
});
