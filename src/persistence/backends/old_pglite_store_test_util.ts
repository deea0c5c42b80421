/**
 * An old data directory for the PGlite conversion's tests (unit and process):
 * a store as a server before issue 15 left it, in PGlite under `pglite/`,
 * with four journal entries applied (a login, two settings, a ban).
 *
 * @module
 */

import { LogHub } from "../../util/log.ts";
import { Store } from "../apply/store.ts";
import { migrate } from "./migrations.ts";
import { PgliteDb } from "./pglite_db.ts";

/** The time of every entry in the old store. */
export const OLD_STORE_T0 = Date.UTC(2026, 0, 1);

/** Writes the old store into `dir` (created when missing). */
export async function writeOldPgliteStore(dir: string): Promise<void> {
  const T0 = OLD_STORE_T0;
  await Deno.mkdir(dir, { recursive: true });
  const log = new LogHub({ level: "error", sink: () => {} }).logger();
  const pg = await PgliteDb.open(`${dir}/pglite`);
  try {
    await migrate(pg, log, T0);
    const store = new Store(pg);
    await store.bindJournal("journal-1", null, T0);
    await store.applyBatch(
      [
        {
          seq: 1,
          entry: {
            t: "login",
            user: 7,
            name: "P7",
            language: "en-US",
            ip: "10.0.0.7",
            session: 1,
            category: "normal",
            at: T0,
            instance: "i",
          },
        },
        { seq: 2, entry: { t: "setting", key: "motd", value: "hello", at: T0 } },
        { seq: 3, entry: { t: "setting", key: "limits", value: { rooms: 5, on: true }, at: T0 } },
        { seq: 4, entry: { t: "ban.user", user: 9, reason: "spam", at: T0 } },
      ] as never,
      4,
      T0,
    );
    await pg.checkpoint();
  } finally {
    await pg.close();
  }
}
