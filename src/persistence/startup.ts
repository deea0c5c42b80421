/**
 * The persistence layer's lifecycle and write path (issue 5): opens the store, replays
 * the journal, listens to the event bus, gates logins on the journal, keeps
 * the durable ban list, and runs the periodic jobs (playtime flush 60 s,
 * auth-cache save 60 s, instance heartbeat 30 s, retention hourly, journal
 * compaction) — spec 3 §8. `stop()` flushes everything and closes.
 *
 * @module
 */

import type { EventBus } from "../events/mod.ts";
import type { LoginJournal, LoginRecord } from "../server/context.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { ApplyWorker } from "./apply/worker.ts";
import { AuthCacheSync } from "./recording/auth_sync.ts";
import { DurableBanList } from "./recording/durable_bans.ts";
import { Journal, type OpenJournalFile } from "./journal/journal.ts";
import { bindJournal, describeDatabase, readJournalId, warnJournalGap } from "./journal/identity.ts";
import type { DamagedRecordsPolicy } from "./journal/recovery.ts";
import { loadAuthCache, loadBans, loadSettings } from "./queries/loaders.ts";
import type { Migration } from "./backends/migrations.ts";
import { openStore } from "./backends/open_store.ts";
import { PersistenceJobs } from "./persistence_jobs.ts";
import { Queries } from "./queries/queries.ts";
import { EventRecorder } from "./recording/recorder.ts";
import { type RetentionConfig, retentionPolicies } from "./retention/retention.ts";
import { SnapshotDebouncer } from "./recording/snapshots.ts";
import type { SqlDb } from "./backends/sql_db.ts";
import { Store } from "./apply/store.ts";
import { RoundTelemetryCap } from "./recording/telemetry_cap.ts";
import type { CoreLink, PersistenceStatus } from "./status.ts";
import { buildStatus } from "./status.ts";
import { isDiskFull } from "./error_text.ts";
import { FailureLog } from "./failure_log.ts";
import { errorText, type JournalEntry, PersistenceError, type RetentionPolicy } from "./types.ts";

/** The configuration keys persistence reads (spec 3 §2.3). */
export interface PersistenceConfig extends RetentionConfig {
  readonly data_dir: string;
  readonly database_url: string | null;
  readonly persistence_queue_capacity: number;
  readonly startup_recovery_timeout: number;
  /** Damaged journal records the store does not hold: refuse to start, or start without them. */
  readonly journal_damaged_records: DamagedRecordsPolicy;
  /** Touches and judges stored per player and round, in MB of JSON (`telemetry_cap.ts`). */
  readonly round_telemetry_max_mb: number;
}

/** Options of `openPersistence`. */
export interface PersistenceOptions {
  readonly config: PersistenceConfig;
  readonly clock: Clock;
  readonly log: Logger;
  /** Events to record; without it only direct writes (logins, bans, …) are durable. */
  readonly bus?: EventBus;
  /** Test seams: a database to use, journal file faults, other migrations, job periods. */
  readonly db?: SqlDb;
  readonly openJournalFile?: OpenJournalFile;
  readonly migrations?: readonly Migration[];
  readonly periods?: Partial<Record<"playtime" | "auth" | "heartbeat" | "retention" | "compact", number>>;
  /** Journal fsync coalescing delay (default 2 ms). */
  readonly syncDelayMs?: number;
}

/** Lifecycle and write path of persistence; the public API is `Persistence` (persistence.ts). */
export class PersistenceCore {
  readonly bans: DurableBanList;
  readonly loginJournal: LoginJournal;
  readonly instanceId: string = crypto.randomUUID();
  readonly o: PersistenceOptions;
  readonly recorder: EventRecorder;
  readonly snapshots: SnapshotDebouncer;
  readonly authSync = new AuthCacheSync();
  /** Failed journal writes (the record was kept in memory and applied). */
  journalWriteFailures = 0;
  /** Events or timer writes that could not be recorded (persistence closed). */
  listenerErrors = 0;
  /** Dead letters found at startup, less those replayed since (the worker counts new ones). */
  deadLetterCount = 0;
  /** The last error of any persistence part. */
  lastError: string | null = null;
  /** Retention policies in force. */
  policies: RetentionPolicy[] = [];
  /** The server core, once attached. */
  core: CoreLink | null = null;
  /** Failed journal writes: the first logged, then a count per interval (a full disk fails every record). */
  readonly #writeFailures: FailureLog;
  #db: SqlDb | null = null;
  #store: Store | null = null;
  #queries: Queries | null = null;
  #journal: Journal | null = null;
  #worker: ApplyWorker | null = null;
  #release: (() => void) | null = null;
  #unlisten: (() => void) | null = null;
  #settings = new Map<string, unknown>();
  protected jobs: PersistenceJobs | null = null;
  #startedAt = 0;
  #closing = false;

  constructor(o: PersistenceOptions) {
    this.o = o;
    this.#writeFailures = new FailureLog({
      log: o.log,
      clock: o.clock,
      message: "journal write failed; the record is kept in memory and applied to the store",
      recovered: "journal writes work again",
    });
    this.bans = new DurableBanList((entry) => void this.write(entry), () => o.clock.now());
    this.loginJournal = {
      recordLogin: (login) => this.#recordLogin(login),
      revokeLogin: (login, reason) => this.#revokeLogin(login, reason),
    };
    const cap = new RoundTelemetryCap(
      o.config.round_telemetry_max_mb * 1024 * 1024,
      (c) =>
        o.log.warn("telemetry cap reached: this player's further touches and judges in this round are dropped", {
          user: c.user,
          room: c.room,
          round: c.round ?? undefined,
          max_bytes: c.maxBytes,
        }),
    );
    this.recorder = new EventRecorder({
      clock: o.clock,
      write: (entry, body) => this.#writeQuietly(entry, body),
      telemetryCap: cap,
    });
    this.snapshots = new SnapshotDebouncer({
      clock: o.clock,
      emit: (room, payload) => this.#writeQuietly({ t: "snapshot", room, payload, at: o.clock.now() }),
    });
  }

  /** Opens the store, replays the journal within `startup_recovery_timeout`, loads state and starts the jobs. */
  async open(): Promise<void> {
    const { config, clock, log } = this.o;
    this.#startedAt = clock.now();
    const opened = await openStore({
      dataDir: config.data_dir,
      databaseUrl: config.database_url,
      log,
      now: this.#startedAt,
      clock,
      ...(this.o.db ? { db: this.o.db } : {}),
      ...(this.o.migrations ? { migrations: this.o.migrations } : {}),
    });
    this.#db = opened.db;
    this.#release = () => opened.lock.release();
    try {
      await this.#recover(config, log);
    } catch (error) {
      await this.#closeAll();
      throw error;
    }
  }

  async #recover(config: PersistenceConfig, log: Logger): Promise<void> {
    const store = this.#store = new Store(this.#db!);
    this.#queries = new Queries(this.#db!);
    const applied = await store.appliedSeq();
    const dir = `${config.data_dir}/journal`;
    // The applied sequence says which damaged records are not needed only when it counts this journal's sequences.
    const ours = await readJournalId(dir);
    const trusted = ours !== null && ours === await store.journalId();
    const journal = this.#journal = await Journal.open({
      dir,
      clock: this.o.clock,
      log,
      minSeq: applied,
      appliedSeq: trusted ? applied : 0,
      damaged: config.journal_damaged_records,
      ...(this.o.openJournalFile ? { openFile: this.o.openJournalFile } : {}),
      ...(this.o.syncDelayMs !== undefined ? { syncDelayMs: this.o.syncDelayMs } : {}),
    });
    // Fail closed on a journal the database does not count (journal_identity.ts), before anything is applied.
    const database = describeDatabase(config);
    await bindJournal({ store, journal, log, now: this.o.clock.now(), database });
    await warnJournalGap(journal, applied, log);
    const worker = this.#worker = new ApplyWorker({
      target: store,
      journal,
      clock: this.o.clock,
      log,
      capacity: config.persistence_queue_capacity,
      appliedSeq: applied,
    });
    const started = performance.now();
    const pending = journal.lastSeq - applied;
    worker.start();
    await this.#withinRecoveryTimeout(worker.idle(), applied);
    if (pending > 0) {
      log.info("journal replayed", { records: pending, ms: Math.round(performance.now() - started) });
    }
    const bans = await loadBans(this.#db!);
    this.bans.load(bans.users, bans.ips);
    this.#settings = await loadSettings(this.#db!);
    this.deadLetterCount = await store.deadLetterCount();
    this.policies = retentionPolicies(config, log);
    const now = this.o.clock.now();
    this.write({ t: "retention", policies: this.policies, at: now });
    this.write({ t: "rounds.interrupted", before: this.#startedAt, at: now });
    this.write(this.instanceEntry(false));
    this.jobs = new PersistenceJobs(this, this.o.periods ?? {});
    // Telemetry too: per-player round data (touch and judge batches) is durable (issue 5), journaled
    // in bundles of every batch cut in a 500 ms tick (telemetry_batcher.ts).
    if (this.o.bus) this.#unlisten = this.o.bus.listen((event) => this.#onEvent(event), { telemetry: true });
    log.info("persistence open", {
      backend: this.#db!.backend,
      data_dir: config.data_dir,
      schema_version: (await this.#db!.query("SELECT MAX(version) AS v FROM schema_version"))[0]?.v,
      journal_seq: journal.lastSeq,
    });
  }

  async #withinRecoveryTimeout(done: Promise<void>, applied: number): Promise<void> {
    const { config, clock } = this.o;
    let timer: TimerHandle | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = clock.setTimeout(() => resolve("timeout"), config.startup_recovery_timeout * 1000);
    });
    const outcome = await Promise.race([done, timeout]);
    clock.clearTimeout(timer);
    if (outcome !== "timeout") return;
    const worker = this.#worker!;
    throw new PersistenceError(
      "recovery_timeout",
      `Cannot start: journal recovery did not finish within startup_recovery_timeout (${config.startup_recovery_timeout} s): ` +
        `applied ${worker.processedSeq - applied} of ${this.#journal!.lastSeq - applied} records` +
        (worker.lastError ? ` (last error: ${worker.lastError})` : "") +
        `; the rest stays in the journal and the next start continues. Raise startup_recovery_timeout or check the database.`,
    );
  }

  /** The store's read queries. */
  get queries(): Queries {
    if (!this.#queries) throw new PersistenceError("closed", "Cannot query: persistence is not open");
    return this.#queries;
  }

  /** The store (apply, dead letters). */
  get store(): Store {
    if (!this.#store) throw new PersistenceError("closed", "Cannot use the store: persistence is not open");
    return this.#store;
  }

  /** The journal. */
  get journal(): Journal {
    if (!this.#journal) throw new PersistenceError("closed", "Cannot use the journal: persistence is not open");
    return this.#journal;
  }

  /** The apply worker. */
  get worker(): ApplyWorker {
    if (!this.#worker) throw new PersistenceError("closed", "Cannot use the worker: persistence is not open");
    return this.#worker;
  }

  /** A setting's value (undefined when unset). */
  getSetting(key: string): unknown {
    return this.#settings.get(key);
  }

  /** Every setting. */
  settings(): Map<string, unknown> {
    return new Map(this.#settings);
  }

  /** Sets (or with `null` deletes) a setting, durably. */
  setSetting(key: string, value: unknown): void {
    this.write({ t: "setting", key, value, at: this.o.clock.now() });
    if (value === null) this.#settings.delete(key);
    else this.#settings.set(key, value);
  }

  /** This instance's start, heartbeat or stop record. */
  instanceEntry(stopped: boolean): JournalEntry {
    let host = "unknown";
    try {
      host = Deno.hostname();
    } catch {
      // No --allow-sys: keep "unknown".
    }
    return {
      t: "instance",
      id: this.instanceId,
      pid: Deno.pid,
      host,
      started_at: this.#startedAt,
      at: this.o.clock.now(),
      stopped,
    };
  }

  /**
   * Journals one record and hands it to the worker; returns its sequence.
   * `gate` marks a write whose failure must fail the caller (a login);
   * otherwise a failed append is logged, counted, and the record still
   * reaches the store from memory. `body` is the entry's JSON when the
   * caller made it already (telemetry bundles), so it is serialized once.
   */
  write(entry: JournalEntry, gate = false, body?: string): number {
    const journal = this.#journal;
    const worker = this.#worker;
    if (!journal || !worker || this.#closing && !this.jobs) {
      throw new PersistenceError("closed", `Cannot write a "${entry.t}" record: persistence is not open`);
    }
    let seq: number;
    try {
      seq = body === undefined ? journal.append(entry) : journal.append(entry, body);
    } catch (error) {
      this.journalWriteFailures++;
      this.lastError = errorText(error);
      const failedSeq = (error as { seq?: number }).seq;
      if (gate || failedSeq === undefined) throw error;
      this.#writeFailures.failed({ seq: failedSeq, type: entry.t, error: this.lastError });
      worker.admit(failedSeq, entry, false, body);
      return failedSeq;
    }
    this.#writeFailures.succeeded();
    worker.admit(seq, entry, true, body);
    if (!gate) journal.requestSync();
    return seq;
  }

  /** For writes from timers and the bus, which must not throw: a closed store is logged and counted. */
  #writeQuietly(entry: JournalEntry, body?: string): void {
    try {
      this.write(entry, false, body);
    } catch (error) {
      this.listenerErrors++;
      this.lastError = errorText(error);
      this.o.log.error("cannot record", { type: entry.t, error: this.lastError });
    }
  }

  async #recordLogin(login: LoginRecord): Promise<void> {
    // spec 3 §3.2: Authenticating → DurableAccepted once this record is on disk.
    const { user_id: user, session_id: session, name, language, ip, category, at } = login;
    try {
      this.write({ t: "login", user, name, language, ip, session, category, at, instance: this.instanceId }, true);
    } catch (error) {
      throw storageError(error, false);
    }
    try {
      await this.journal.sync();
    } catch (error) {
      // The record is written and handed to the worker: it will be applied unless compensated (`revokeLogin`).
      throw storageError(error, true);
    }
  }

  #revokeLogin(login: LoginRecord, reason: string): void {
    // spec 3 §3.2 rollback "compensation sent": applied after the login, it takes the login back.
    const { user_id: user, session_id: session, ip } = login;
    this.#writeQuietly({
      t: "login.revoked",
      user,
      ip,
      session,
      instance: this.instanceId,
      reason,
      at: this.o.clock.now(),
    });
  }

  #onEvent(event: Parameters<EventRecorder["onEvent"]>[0]): void {
    try {
      this.recorder.onEvent(event);
    } catch (error) {
      this.listenerErrors++;
      this.lastError = errorText(error);
      this.o.log.error("cannot record an event", { kind: event.kind, error: this.lastError });
    }
  }

  /** Restores the auth cache and the set of players seen from the store, and saves the cache from now on. */
  async attachCore(core: CoreLink): Promise<void> {
    this.core = core;
    const entries = await loadAuthCache(this.#db!, core.authCache.capacity);
    for (const [hash, identity] of entries) core.authCache.set(hash, identity);
    this.authSync.markSaved(core.authCache.entries());
    for (const id of await this.queries.allPlayerIds()) core.seenPlayers.add(id);
  }

  /** The `runtime persistence` report (spec 3 §4.2). */
  status(): PersistenceStatus {
    return buildStatus(this, this.#journal, this.#worker, this.#db?.backend ?? null);
  }

  /** Resolves once every record journaled so far is in the store. */
  flush(): Promise<void> {
    return this.worker.idle();
  }

  /** Flushes playtime, the auth cache, batches and snapshots, drains the queue briefly, and closes. */
  async stop(drainMs = 3000): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#unlisten?.();
    this.#unlisten = null;
    if (this.jobs) await this.jobs.stop(drainMs);
    this.jobs = null;
    await this.#closeAll();
    this.o.log.info("persistence closed", { data_dir: this.o.config.data_dir });
  }

  async #closeAll(): Promise<void> {
    this.recorder.batcher.stop();
    await this.#worker?.stop();
    await this.#journal?.close();
    if (!this.o.db) {
      await this.#db?.close().catch((error) =>
        this.o.log.warn("closing the database failed", { error: errorText(error) })
      );
    }
    this.#release?.();
    this.#release = null;
  }
}

/**
 * A failed login write for the login path: `committed` when the record was
 * written (only its flush failed), `diskFull` so the player's refusal can
 * say the disk is full (login.ts).
 */
function storageError(error: unknown, committed: boolean): Error {
  const e = error instanceof Error ? error : new Error(errorText(error));
  return Object.assign(e, { committed, diskFull: isDiskFull(e.message) });
}
