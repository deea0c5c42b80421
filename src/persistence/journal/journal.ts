/**
 * The local write-ahead journal (issue 5 "Write-ahead journal"): segment
 * files under `data_dir/journal`, one record per durable write, each with
 * its length, checksums and global sequence (layout in `format.ts`;
 * recovery of damage at startup in `recovery.ts`).
 *
 * `append` writes synchronously, so a record is in the operating system's
 * hands before the caller goes on (a killed process loses nothing it
 * appended). Flushing to the disk is batched: {@link Journal.requestSync}
 * coalesces fsyncs within a few milliseconds, and {@link Journal.sync} -- for
 * writes that gate a reply, such as a login -- joins the flush in flight or
 * starts one at once (group commit). A failed write is cut back off the file
 * so the journal never holds a torn record in its middle.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import { FailureLog } from "../failure_log.ts";
import { CURRENT_VERSION, SEGMENT_HEADER_BYTES, segmentHeader, segmentName } from "./format.ts";
import { type JournalFile, openActive, type OpenJournalFile, openSegmentFile, syncDir, writeAll } from "./files.ts";
import { RecordEncoder } from "./record_v2.ts";
import { type DamagedRecordsPolicy, recoverJournal, type RecoveryCounters, type SegmentInfo } from "./recovery.ts";
import { entrySpan, errorText, type JournalEntry, PersistenceError } from "../types.ts";

/** Options of {@link Journal.open}. */
export interface JournalOptions {
  readonly dir: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** A segment is closed once it reaches this size (default 8 MiB). */
  readonly segmentBytes?: number;
  /** Delay within which requested fsyncs are coalesced (default 2 ms). */
  readonly syncDelayMs?: number;
  /** Sequences continue after this one at least (the store's applied sequence). */
  readonly minSeq?: number;
  /**
   * Damaged records at or below this sequence are not needed (the store holds them): the store's applied
   * sequence when the store counts this journal's sequences, else 0 (default).
   */
  readonly appliedSeq?: number;
  /** Damaged records the store does not hold: refuse to start (default) or start without them. */
  readonly damaged?: DamagedRecordsPolicy;
  readonly openFile?: OpenJournalFile;
}

/** Counters of one journal (with what recovery at startup did). */
export interface JournalCounters extends RecoveryCounters {
  appended: number;
  bytes_written: number;
  fsyncs: number;
  write_failures: number;
  sync_failures: number;
}

/** The journal of one data directory (one owner process: see `../lock.ts`). */
export class Journal {
  readonly dir: string;
  readonly counters: JournalCounters;
  readonly #o: JournalOptions;
  readonly #segments: SegmentInfo[];
  readonly #encoder = new RecordEncoder();
  readonly #segmentBytes: number;
  #file: JournalFile;
  #lastSeq: number;
  #syncedSeq: number;
  #inflight: Promise<void> | null = null;
  #timer: TimerHandle | undefined;
  #broken = false;
  #closed = false;
  /** A failing disk fails every batched flush: the first is logged, then a count per interval. */
  readonly #flushFailures: FailureLog;

  private constructor(
    o: JournalOptions,
    segments: SegmentInfo[],
    file: JournalFile,
    lastSeq: number,
    recovery: RecoveryCounters,
  ) {
    this.dir = o.dir;
    this.#o = o;
    this.#segments = segments;
    this.#file = file;
    this.#lastSeq = lastSeq;
    this.#syncedSeq = lastSeq;
    this.#segmentBytes = o.segmentBytes ?? 8 * 1024 * 1024;
    this.#flushFailures = new FailureLog({
      log: o.log,
      clock: o.clock,
      message: "journal flush failed",
      recovered: "journal flushes work again",
    });
    this.counters = {
      appended: 0,
      bytes_written: 0,
      fsyncs: 0,
      write_failures: 0,
      sync_failures: 0,
      ...recovery,
    };
  }

  /** Creates the directory if needed, scans and repairs the segments, and opens the last one for appending. */
  static async open(o: JournalOptions): Promise<Journal> {
    try {
      await Deno.mkdir(o.dir, { recursive: true });
    } catch (error) {
      throw new PersistenceError("data_dir", `Cannot create the journal directory "${o.dir}": ${errorText(error)}`);
    }
    const { segments, counters } = await recoverJournal({
      dir: o.dir,
      log: o.log,
      appliedSeq: o.appliedSeq ?? 0,
      damaged: o.damaged ?? "refuse",
      now: o.clock.now(),
    });
    const { file, lastSeq } = openActive(o.dir, segments, o.minSeq ?? 0, o.openFile ?? openSegmentFile);
    return new Journal(o, segments, file, lastSeq, counters);
  }

  /** Last sequence allocated. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Every record up to this sequence is on the disk (fsynced). */
  get syncedSeq(): number {
    return this.#syncedSeq;
  }

  /** The segments, oldest first (the last one is being appended to). */
  segments(): readonly Readonly<SegmentInfo>[] {
    return this.#segments;
  }

  /** Total size of the segments in bytes. */
  get bytes(): number {
    return this.#segments.reduce((n, s) => n + s.bytes, 0);
  }

  /**
   * Appends one record and returns its sequence: the last of the
   * {@link entrySpan} sequences it takes (a telemetry bundle takes one per
   * batch). `body` is the entry's JSON when the caller has it already.
   * Throws a {@link PersistenceError} (`journal_write`, with `seq` set on the
   * error) when the write fails; the sequences are used up either way.
   */
  append(entry: JournalEntry, body?: string): number {
    if (this.#closed) throw new PersistenceError("closed", "Cannot append to the journal: it is closed");
    const seq = this.#lastSeq += entrySpan(entry);
    const bytes = this.#encoder.encode(seq, body ?? JSON.stringify(entry));
    let active = this.#segments.at(-1)!;
    try {
      if (this.#broken || (active.records > 0 && active.bytes + bytes.length > this.#segmentBytes)) {
        active = this.#roll(seq);
      }
      writeAll(this.#file, bytes);
    } catch (error) {
      this.counters.write_failures++;
      try {
        this.#file.truncateSync(active.bytes);
      } catch {
        // The next append starts a new segment; recovery cuts this tail.
        this.#broken = true;
      }
      throw Object.assign(
        new PersistenceError("journal_write", `Cannot append to the journal in "${this.dir}": ${errorText(error)}`, {
          cause: error,
        }),
        { seq },
      );
    }
    active.bytes += bytes.length;
    active.lastSeq = seq;
    active.records++;
    this.counters.appended++;
    this.counters.bytes_written += bytes.length;
    return seq;
  }

  /** Flushes everything appended so far to the disk; joins a flush in flight (group commit). */
  async sync(): Promise<void> {
    const target = this.#lastSeq;
    while (this.#syncedSeq < target) await this.#syncOnce();
  }

  /** Asks for a flush within `syncDelayMs`, batched with others (for writes that gate nothing). */
  requestSync(): void {
    if (this.#timer || this.#closed || this.#syncedSeq >= this.#lastSeq) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      this.sync().then(
        () => this.#flushFailures.succeeded(),
        (error) => this.#flushFailures.failed({ error: errorText(error) }),
      );
    }, this.#o.syncDelayMs ?? 2);
  }

  /** Deletes closed segments whose records are all at or below `seq` (applied durably). */
  async dropThrough(seq: number): Promise<number> {
    let dropped = 0;
    while (this.#segments.length > 1 && this.#segments[0]!.lastSeq <= seq) {
      const segment = this.#segments.shift()!;
      await Deno.remove(segment.path).catch((error) => {
        this.#o.log.warn("journal: could not delete an applied segment", {
          segment: segment.path,
          error: errorText(error),
        });
      });
      dropped++;
    }
    return dropped;
  }

  /** Flushes and closes the journal. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#o.clock.clearTimeout(this.#timer);
    try {
      await this.sync();
    } catch (error) {
      this.#o.log.error("journal flush at close failed", { error: errorText(error) });
    }
    this.#closed = true;
    await this.#inflight?.catch(() => {});
    this.#file.close();
  }

  #syncOnce(): Promise<void> {
    if (!this.#inflight) {
      const upTo = this.#lastSeq;
      const file = this.#file;
      this.#inflight = file.sync().then(
        () => {
          this.counters.fsyncs++;
          if (upTo > this.#syncedSeq) this.#syncedSeq = upTo;
        },
        (error) => {
          this.counters.sync_failures++;
          throw new PersistenceError("journal_write", `Cannot flush the journal in "${this.dir}": ${errorText(error)}`);
        },
      ).finally(() => (this.#inflight = null));
    }
    return this.#inflight;
  }

  /** Closes the active segment (flushed) and starts a new one whose first record is `seq`. */
  #roll(seq: number): SegmentInfo {
    const old = this.#file;
    const previous = this.#segments.at(-1)!;
    if (!this.#broken) {
      old.syncSync();
      if (previous.lastSeq > this.#syncedSeq) this.#syncedSeq = previous.lastSeq;
    }
    const path = `${this.dir}/${segmentName(seq)}`;
    const file = (this.#o.openFile ?? openSegmentFile)(path);
    try {
      writeAll(file, segmentHeader(seq));
      syncDir(this.dir);
    } catch (error) {
      file.close();
      throw error;
    }
    if (this.#inflight) this.#inflight.finally(() => old.close()).catch(() => {});
    else old.close();
    this.#file = file;
    this.#broken = false;
    const segment: SegmentInfo = {
      path,
      firstSeq: seq,
      lastSeq: seq - 1,
      bytes: SEGMENT_HEADER_BYTES,
      records: 0,
      version: CURRENT_VERSION,
    };
    this.#segments.push(segment);
    return segment;
  }
}
