/**
 * The persistence layer's public face (issue 5): {@link openPersistence}
 * returns a {@link Persistence} -- the durable ban list and login journal for
 * the server context, room snapshots, queries, settings, benchmark reports,
 * and the functions behind `wal inspect`, `dead-letter list|replay` and
 * `runtime persistence`.
 *
 * It is composed of parts that know nothing of it: the storage opened at
 * start (`startup.ts`: store, journal, apply worker), the write path
 * (`writer.ts`), the recording of events (`recording/`), and the periodic
 * jobs (`persistence_jobs.ts`, given explicit hooks). `stop()` flushes
 * everything and closes.
 *
 * @module
 */

import type { DomainEvent } from "../events/mod.ts";
import type { LoginJournal } from "../server/context.ts";
import type { ApplyWorker, DeadLetter, Store } from "./apply/mod.ts";
import { inspectJournal, type WalInspection } from "./inspect.ts";
import type { Journal } from "./journal/mod.ts";
import type { PersistenceOptions } from "./options.ts";
import { PersistenceJobs } from "./persistence_jobs.ts";
import { loadAuthCache, type PlaytimeRow, type Queries, type SnapshotRow } from "./queries/mod.ts";
import { DurableBanList, instanceEntry, Recording } from "./recording/mod.ts";
import * as reads from "./persistence_reads.ts";
import { retentionPolicies, type RetentionResult } from "./retention/mod.ts";
import { openStorage, type Storage } from "./startup.ts";
import { forgetFiles, recoverTelemetry, telemetryDir } from "./telemetry/mod.ts";
import { buildStatus, type CoreLink, type PersistenceStatus } from "./status.ts";
import { PersistenceError, type RetentionPolicy } from "./types.ts";
import { durableLogins, RecordWriter } from "./writer.ts";

export type { PersistenceConfig, PersistenceOptions } from "./options.ts";
export type { DeadLetterReplay } from "./persistence_reads.ts";

/** A benchmark report to store. */
export interface BenchmarkReportInput {
  readonly id?: string;
  readonly title: string;
  readonly report: unknown;
}

/** Open persistence (see the module doc). */
export class Persistence {
  /** Bans, journaled before they take effect (the server context's `bans`). */
  readonly bans: DurableBanList;
  /** The login durability gate (spec 3 §3.2; the server context's `loginJournal`). */
  readonly loginJournal: LoginJournal;
  /** This server instance (its heartbeat rows, and the instance of its logins). */
  readonly instanceId: string = crypto.randomUUID();
  readonly #o: PersistenceOptions;
  readonly #writer: RecordWriter;
  readonly #recording: Recording;
  #storage: Storage | null = null;
  #jobs: PersistenceJobs | null = null;
  #settings = new Map<string, unknown>();
  #policies: RetentionPolicy[] = [];
  #deadLetters = 0;
  #core: CoreLink | null = null;
  #unlisten: (() => void) | null = null;
  #startedAt = 0;
  #closing = false;

  constructor(o: PersistenceOptions) {
    this.#o = o;
    const writer = this.#writer = new RecordWriter(o);
    this.bans = new DurableBanList((entry) => void writer.write(entry), () => o.clock.now());
    this.loginJournal = durableLogins(writer, this.instanceId, o.clock);
    this.#recording = new Recording({
      clock: o.clock,
      log: o.log,
      write: (entry, body) => writer.quietly(entry, body),
      roundTelemetryMaxBytes: o.config.round_telemetry_max_mb * 1024 * 1024,
      telemetryDir: telemetryDir(o.config.data_dir),
      ...(o.telemetry ? { telemetry: o.telemetry } : {}),
    });
  }

  /** Opens the store, replays the journal within `startup_recovery_timeout`, loads state and starts the jobs. */
  async open(): Promise<void> {
    const { config, clock, log } = this.#o;
    this.#startedAt = clock.now();
    const storage = this.#storage = await openStorage(this.#o, this.#startedAt);
    this.#writer.open(storage);
    try {
      await recoverTelemetry(telemetryDir(config.data_dir), log); // Torn tails of files open at the last stop.
      const state = await reads.loadState(storage.db, storage.store);
      this.bans.load(state.bans.users, state.bans.ips);
      this.#settings = state.settings;
      this.#deadLetters = state.deadLetters;
      this.#policies = retentionPolicies(config, log);
      const now = clock.now();
      this.write({ t: "retention", policies: this.#policies, at: now });
      this.write({ t: "rounds.interrupted", before: this.#startedAt, at: now });
      this.write(instanceEntry(this.instanceId, this.#startedAt, now, false));
      this.#jobs = new PersistenceJobs({
        clock,
        log,
        storage,
        policies: () => this.#policies,
        telemetryDir: telemetryDir(config.data_dir),
        flushPlaytime: () => this.flushPlaytime(),
        saveAuthCache: () => this.saveAuthCache(),
        heartbeat: (stopped) => this.write(instanceEntry(this.instanceId, this.#startedAt, clock.now(), stopped)),
        flushHeld: () => this.#recording.flushHeld(),
        failed: (error) => this.#writer.noteError(error),
      }, this.#o.periods ?? {});
      const failed = (error: unknown, e: DomainEvent) =>
        this.#writer.listenerFailed("cannot record an event", error, { kind: e.kind });
      if (this.#o.bus) {
        const unlisten = this.#recording.listen(this.#o.bus, failed);
        // The first round: telemetry indexes and results will be applied for as long as people play.
        const unplay = storage.db.expectBusy
          ? this.#o.bus.listen((e) => {
            if (e.kind !== "round.started") return;
            storage.db.expectBusy?.();
            unplay?.();
          })
          : null;
        this.#unlisten = () => {
          unlisten();
          unplay?.();
        };
      }
      log.info("persistence open", {
        backend: storage.db.backend,
        data_dir: config.data_dir,
        schema_version: (await storage.db.query("SELECT MAX(version) AS v FROM schema_version"))[0]?.v,
        journal_seq: storage.journal.lastSeq,
      });
    } catch (error) {
      await this.#close();
      throw error;
    }
  }

  /** The store's read queries. */
  get queries(): Queries {
    return this.#open("query").queries;
  }

  /** The store (apply, dead letters, and its database for tools). */
  get store(): Store {
    return this.#open("use the store").store;
  }

  /** The journal. */
  get journal(): Journal {
    return this.#open("use the journal").journal;
  }

  /** The apply worker. */
  get worker(): ApplyWorker {
    return this.#open("use the worker").worker;
  }

  /** Journals one record and hands it to the worker; returns its sequence (see `RecordWriter.write`). */
  write(...args: Parameters<RecordWriter["write"]>): number {
    return this.#writer.write(...args);
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
    this.write({ t: "setting", key, value, at: this.#o.clock.now() });
    if (value === null) this.#settings.delete(key);
    else this.#settings.set(key, value);
  }

  /** Restores the auth cache and the set of players seen from the store, and saves the cache from now on. */
  async attachCore(core: CoreLink): Promise<void> {
    this.#core = core;
    const entries = await loadAuthCache(this.#open("attach").db, core.authCache.capacity);
    for (const [hash, identity] of entries) core.authCache.set(hash, identity);
    this.#recording.authCacheLoaded(core.authCache.entries());
    for (const id of await this.queries.allPlayerIds()) core.seenPlayers.add(id);
  }

  /** The `runtime persistence` report (spec 3 §4.2). */
  status(): PersistenceStatus {
    const s = this.#storage;
    return buildStatus({
      dataDir: this.#o.config.data_dir,
      queueCapacity: this.#o.config.persistence_queue_capacity,
      backend: s?.db.backend ?? null,
      journal: s?.journal ?? null,
      worker: s?.worker ?? null,
      writer: this.#writer,
      deadLetters: this.#deadLetters,
      core: this.#core,
      telemetry: this.#recording.recorder.telemetry,
    });
  }

  /** Resolves once every record journaled so far (and every telemetry segment written so far) is in the store. */
  async flush(): Promise<void> {
    await this.#recording.telemetryIdle().then(() => this.worker.idle());
  }

  /** Saves a room snapshot after a 500 ms debounce (spec 3 §2.1). */
  saveRoomSnapshot(roomId: string, payload: unknown): void {
    this.#recording.snapshots.save(roomId, payload);
  }

  /** Deletes a room's snapshot (the room is no longer persistent, or was closed). */
  deleteRoomSnapshot(roomId: string): void {
    this.#recording.snapshots.delete(roomId);
  }

  /** Every saved room snapshot (restore at startup). */
  loadRoomSnapshots(): Promise<SnapshotRow[]> {
    return reads.allRoomSnapshots(this.queries);
  }

  /** Accumulated playtime of `user` in milliseconds, including what is not flushed yet. */
  async playtime(user: number): Promise<number> {
    return await this.queries.playtime(user) + this.#recording.pendingPlaytime(user);
  }

  /** The `n` users with the most playtime, including unflushed time. */
  topPlaytime(n: number): Promise<PlaytimeRow[]> {
    return reads.livePlaytimeRanking(this.queries, this.#recording.recorder.playtime, n, this.#o.clock.now());
  }

  /** Stores a benchmark report; returns its id. */
  saveBenchmarkReport(input: BenchmarkReportInput): string {
    const id = input.id ?? crypto.randomUUID();
    this.write({ t: "benchmark", id, title: input.title, report: input.report, at: this.#o.clock.now() });
    return id;
  }

  /** `wal inspect`: segments, sequences, and the first unapplied records. */
  walInspect(limit = 20): Promise<WalInspection> {
    return inspectJournal(this.journal, this.worker, limit);
  }

  /** `dead-letter list`: records that kept failing, with their errors. */
  deadLetters(limit = 100): Promise<DeadLetter[]> {
    return this.store.deadLetters(limit);
  }

  /** `dead-letter replay`: applies every dead letter again; the ones that succeed leave the list. */
  async replayDeadLetters(): Promise<reads.DeadLetterReplay> {
    const result = await reads.replayAllDeadLetters(this.store, () => this.#o.clock.now(), this.#o.log);
    this.#deadLetters -= result.replayed;
    return result;
  }

  /** Runs retention now (it also runs hourly). */
  runRetention(): Promise<RetentionResult[]> {
    if (!this.#jobs) throw new PersistenceError("closed", "Cannot run retention: persistence is not open");
    return this.#jobs.runRetention();
  }

  /** Drops the index rows of telemetry files removed outside retention (legacy's replay sweep); the rows deleted. */
  async forgetTelemetryFiles(paths: readonly string[]): Promise<number> {
    return paths.length ? await forgetFiles(this.#open("forget telemetry files").db, paths) : 0;
  }

  /** Journals playtime accumulated so far (it also happens every 60 s). */
  flushPlaytime(): void {
    if (this.#jobs) this.#recording.flushPlaytime();
  }

  /** Journals auth-cache changes (it also happens every 60 s). */
  saveAuthCache(): void {
    const core = this.#core;
    if (!core || !this.#jobs) return;
    const entry = this.#recording.authCacheChanges(core.authCache.entries());
    if (entry) this.write(entry);
  }

  /** Deletes journal segments the store durably holds (it also happens every 60 s). */
  compactJournal(): Promise<number> {
    if (!this.#jobs) throw new PersistenceError("closed", "Cannot compact: persistence is not open");
    return this.#jobs.compact();
  }

  /** Flushes playtime, the auth cache, batches and snapshots, drains the queue briefly, and closes. */
  async stop(drainMs = 3000): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#unlisten?.();
    this.#unlisten = null;
    await this.#recording.closeTelemetry(); // The files' last segments are journaled before the final flushes.
    await this.#jobs?.stop(drainMs);
    this.#jobs = null;
    await this.#close();
    this.#o.log.info("persistence closed", { data_dir: this.#o.config.data_dir });
  }

  async #close(): Promise<void> {
    this.#writer.close();
    this.#recording.stop();
    await this.#storage?.close();
  }

  #open(action: string): Storage {
    if (!this.#storage) throw new PersistenceError("closed", `Cannot ${action}: persistence is not open`);
    return this.#storage;
  }
}

/** Creates and opens persistence: checks and locks `data_dir`, opens and migrates the store, replays the journal. */
export async function openPersistence(o: PersistenceOptions): Promise<Persistence> {
  const p = new Persistence(o);
  await p.open();
  return p;
}
