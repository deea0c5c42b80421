/**
 * Opening persistence's storage (issue 5 "Startup replays unapplied
 * records"; spec 3 §9 "startup fails closed"): the store is opened and
 * migrated, the journal recovered (`journal/recovery.ts`) and bound to the
 * database (`journal/identity.ts`), and the apply worker replays what the
 * store does not hold yet, within `startup_recovery_timeout`. Anything that
 * fails closes what was opened and releases the data directory.
 *
 * @module
 */

import { ApplyWorker, Store } from "./apply/mod.ts";
import { describeDatabase, openStore, type SqlDb, SQLITE_APPLY_BATCH_BYTES, SqliteStoreDb } from "./backends/mod.ts";
import { bindJournal, Journal, readJournalId, warnJournalGap } from "./journal/mod.ts";
import type { PersistenceOptions } from "./options.ts";
import { Queries } from "./queries/mod.ts";
import { telemetryDir } from "./telemetry/mod.ts";
import { errorText, PersistenceError } from "./types.ts";

/** The open parts of persistence's storage. */
export interface Storage {
  readonly db: SqlDb;
  readonly store: Store;
  readonly queries: Queries;
  readonly journal: Journal;
  readonly worker: ApplyWorker;
  /** Stops the worker, closes the journal and (unless it was given) the database, and releases `data_dir`. */
  close(): Promise<void>;
}

/** Opens the store and the journal and replays the journal into the store; see the module doc. */
export async function openStorage(o: PersistenceOptions, now: number): Promise<Storage> {
  const { config, clock, log } = o;
  const opened = await openStore({
    dataDir: config.data_dir,
    databaseUrl: config.database_url,
    log,
    now,
    ...(o.db ? { db: o.db } : {}),
    ...(o.migrations ? { migrations: o.migrations } : {}),
  });
  const db = opened.db;
  let journal: Journal | null = null;
  let worker: ApplyWorker | null = null;
  const close = async () => {
    await worker?.stop();
    await journal?.close();
    if (!o.db) await db.close().catch((error) => log.warn("closing the database failed", { error: errorText(error) }));
    opened.lock.release();
  };
  try {
    const store = new Store(db);
    const applied = await store.appliedSeq();
    const dir = `${config.data_dir}/journal`;
    // The applied sequence says which damaged records are not needed only when it counts this journal's sequences.
    const ours = await readJournalId(dir);
    const trusted = ours !== null && ours === await store.journalId();
    journal = await Journal.open({
      dir,
      clock,
      log,
      minSeq: applied,
      appliedSeq: trusted ? applied : 0,
      damaged: config.journal_damaged_records,
      ...(o.openJournalFile ? { openFile: o.openJournalFile } : {}),
      ...(o.syncDelayMs !== undefined ? { syncDelayMs: o.syncDelayMs } : {}),
    });
    // Fail closed on a journal the database does not count (journal/identity.ts), before anything is applied.
    await bindJournal({ store, journal, log, now: clock.now(), database: describeDatabase(config) });
    await warnJournalGap(journal, applied, log);
    worker = new ApplyWorker({
      target: store,
      journal,
      clock,
      log,
      capacity: config.persistence_queue_capacity,
      appliedSeq: applied,
      ...(db instanceof SqliteStoreDb
        ? { limits: () => db.batchLimits() }
        : db.backend === "sqlite"
        ? { maxBatchBytes: SQLITE_APPLY_BATCH_BYTES }
        : {}),
    });
    const started = performance.now();
    const pending = journal.lastSeq - applied;
    worker.start();
    await withinRecoveryTimeout(o, worker, journal, applied);
    if (pending > 0) log.info("journal replayed", { records: pending, ms: Math.round(performance.now() - started) });
    return { db, store, queries: new Queries(db, telemetryDir(config.data_dir)), journal, worker, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function withinRecoveryTimeout(
  o: PersistenceOptions,
  worker: ApplyWorker,
  journal: Journal,
  applied: number,
): Promise<void> {
  const { config, clock } = o;
  let timer: ReturnType<typeof clock.setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = clock.setTimeout(() => resolve("timeout"), config.startup_recovery_timeout * 1000);
  });
  const outcome = await Promise.race([worker.idle(), timeout]);
  clock.clearTimeout(timer);
  if (outcome !== "timeout") return;
  throw new PersistenceError(
    "recovery_timeout",
    `Cannot start: journal recovery did not finish within startup_recovery_timeout (${config.startup_recovery_timeout} s): ` +
      `applied ${worker.processedSeq - applied} of ${journal.lastSeq - applied} records` +
      (worker.lastError ? ` (last error: ${worker.lastError})` : "") +
      `; the rest stays in the journal and the next start continues. Raise startup_recovery_timeout or check the database.`,
  );
}
