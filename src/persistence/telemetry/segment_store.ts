/**
 * Stores touches and judges as wire bytes (issue 15): every `Touches` or
 * `Judges` payload, exactly as the client sent it, is appended to the
 * player's `.phirarec` file of the round (`<data_dir>/record/<user>/<chart>/
 * <round start ms>.phirarec`, `src/replay`), so stored telemetry and legacy
 * replays are one thing. Nothing is serialized per message: the hot path
 * ({@link TelemetrySegments.add}) is a map lookup, the cap check and one copy
 * of the payload into the file's buffer.
 *
 * Batching: a file's buffer is written when it reaches `segmentBytes`, and
 * every `flushMs` (spec 3 §8 "batches of ... 500 ms"; one timer of the
 * injected clock, ticking `slots` times per period, each tick writing the
 * files of one slot so that the work is spread), when the round completes,
 * and at shutdown. What was written is indexed as one segment -- one fsync,
 * then one `telemetry_segments` row -- every `indexMs` (5 s), once
 * `segmentBytes` are unindexed, before the record id is patched in, and when
 * the file closes: per player an fsync and a row every few seconds instead of
 * every 500 ms (at 300 rooms 480 rows/s, not 4,800; BENCHMARKS.md). The
 * segments indexed together go into one `telemetry.segments` journal record.
 * An index row never names bytes the disk may not hold; a crash loses from
 * the index at most the last `indexMs` of each open file (the bytes stay in
 * the file, so its replay keeps them), and a torn tail is cut at the next
 * start (`recovery.ts`, which finds the files that were open by their
 * markers).
 *
 * Bounded: bytes buffered or being written, over all files, stay under
 * `maxPendingBytes` (beyond it messages are dropped and counted: a stalled
 * disk must not grow memory), and each player-round stays under the
 * `round_telemetry_max_mb` budget (`telemetry_cap.ts`, in wire bytes). A
 * failing disk (full, unwritable folder) is logged once per file with the
 * player and round, counted, and the player's further messages of that
 * round are dropped; the game goes on.
 *
 * @module
 */

import type { TimerHandle } from "../../util/clock.ts";
import { RoundTelemetryCap } from "../recording/telemetry_cap.ts";
import { SEGMENT_LIMITS, type TelemetrySegmentsCounters, type TelemetrySegmentsOptions } from "./segment_options.ts";
import { RoundFile } from "./round_file.ts";
import type { TelemetrySegment } from "./segment_types.ts";

export { SEGMENT_LIMITS } from "./segment_options.ts";
export type { TelemetrySegmentsCounters, TelemetrySegmentsOptions } from "./segment_options.ts";

type Kind = "touches" | "judges";

const ZERO: TelemetrySegmentsCounters = { messages: 0, bytes: 0, segments: 0, records: 0, dropped: 0, failed_files: 0 };

/** The telemetry store; see the module doc. */
export class TelemetrySegments {
  readonly #o: TelemetrySegmentsOptions;
  readonly #segmentBytes: number;
  readonly #indexMs: number;
  readonly #maxPending: number;
  /** The file being written of each player (a player is in one room and round at a time). */
  readonly #byUser = new Map<number, RoundFile>();
  readonly #byRound = new Map<string, Set<RoundFile>>();
  /** Chart and start of rounds in progress (from `round.started`), for the file's header and name. */
  readonly #rounds = new Map<string, { chart: number; startedAt: number }>();
  /** Writes in flight (their segments are journaled when they finish). */
  readonly #inFlight = new Set<Promise<void>>();
  #done: TelemetrySegment[] = [];
  #emitQueued = false;
  #pending = 0;
  #timer: TimerHandle | undefined;
  /** Open files by the tick that flushes them (`SEGMENT_LIMITS.slots` ticks per `flushMs`); `#phase` is next. */
  readonly #slots: Set<RoundFile>[] = Array.from({ length: SEGMENT_LIMITS.slots }, () => new Set());
  readonly #slotOf = new WeakMap<RoundFile, number>();
  #phase = 0;
  #stopped = false;
  /** The per-round budget of each player. */
  readonly cap: RoundTelemetryCap;
  readonly counters: TelemetrySegmentsCounters = { ...ZERO };

  constructor(o: TelemetrySegmentsOptions) {
    this.#o = o;
    this.#segmentBytes = o.segmentBytes ?? SEGMENT_LIMITS.segmentBytes;
    this.#indexMs = o.indexMs ?? SEGMENT_LIMITS.indexMs;
    this.#maxPending = o.maxPendingBytes ?? SEGMENT_LIMITS.maxPendingBytes;
    this.cap = o.cap ?? new RoundTelemetryCap();
  }

  /** Files being written. */
  get open(): number {
    return this.#byUser.size;
  }

  /** Bytes buffered or being written. */
  get pendingBytes(): number {
    return this.#pending;
  }

  /** A round started: its chart and start name its players' files. */
  roundStarted(round: string, chart: number, startedAt: number): void {
    this.#rounds.set(round, { chart, startedAt });
  }

  /**
   * Appends one `Touches` or `Judges` payload (`raw`: tag byte first, no frame
   * length) of `items` frames or events; never waits, never throws for I/O.
   */
  add(
    kind: Kind,
    room: string,
    roomUuid: string,
    round: string | null,
    user: number,
    raw: Uint8Array,
    items: number,
    at: number,
  ): void {
    if (this.#stopped || raw.length === 0) return;
    const size = raw.length + 4;
    if (!this.cap.admit(room, round, user, items, size)) return;
    let open = this.#byUser.get(user);
    if (open && (open.round !== round || open.roomUuid !== roomUuid)) {
      this.#closing(open); // Another room or round: its file is done.
      open = undefined;
    }
    if (this.#pending + size > this.#maxPending || open?.failed) {
      this.counters.dropped++;
      return;
    }
    open ??= this.#openFile(room, roomUuid, round, user, at) ?? undefined;
    if (!open || !open.append(kind, raw, items, at)) {
      this.counters.dropped++;
      return;
    }
    this.#pending += size;
    this.counters.messages++;
    this.counters.bytes += size;
    if (open.writer.buffered >= this.#segmentBytes) this.#flush(open);
  }

  /** The player's result arrived: its record id goes into the file's header (tphira's `.phirarec`). */
  scored(round: string, user: number, recordId: number): void {
    const open = this.#byUser.get(user);
    if (!open || open.round !== round || open.failed) return;
    // Written and indexed before the patch (the writer would write the buffer itself, outside the bookkeeping).
    this.#flush(open, true);
    void open.writer.setRecordId(recordId);
  }

  /** The round completed: its files are written, closed and indexed. */
  flushRound(round: string): void {
    this.cap.roundDone(round);
    this.#rounds.delete(round);
    for (const open of this.#byRound.get(round) ?? []) this.#closing(open);
  }

  /** The room closed: its round-less files (telemetry outside a round) are closed too. */
  roomGone(room: string, roomUuid: string): void {
    this.cap.roomGone(room);
    for (const open of [...this.#byUser.values()]) if (open.roomUuid === roomUuid) this.#closing(open);
  }

  /** Writes and indexes every file now (it also happens every `flushMs` and `indexMs`). */
  flushAll(): void {
    for (const open of this.#byUser.values()) this.#flush(open, true);
  }

  /** Resolves once every write started so far finished and its segments were journaled. */
  async idle(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight]);
    this.#emitDone();
  }

  /** Writes and closes every file (shutdown); nothing is accepted afterwards. */
  async close(): Promise<void> {
    this.#stopped = true;
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.all([...this.#byUser.values()].map((open) => this.#close(open)));
    await this.idle();
  }

  #openFile(room: string, roomUuid: string, round: string | null, user: number, at: number): RoundFile | null {
    const info = round === null ? undefined : this.#rounds.get(round);
    const open = RoundFile.start({
      dir: this.#o.dir,
      room,
      roomUuid,
      round,
      user,
      chart: (info?.chart ?? 0) >>> 0,
      startedAt: info?.startedAt ?? at,
      maxPendingBytes: this.#maxPending,
      nameAttempts: SEGMENT_LIMITS.nameAttempts,
      ...(this.#o.io ? { io: this.#o.io } : {}),
    });
    if (!open) return null;
    this.#byUser.set(user, open);
    // Flushed by the tick a full period from now; files spread over the slots as they open.
    const slot = (this.#phase + SEGMENT_LIMITS.slots - 1) % SEGMENT_LIMITS.slots;
    this.#slots[slot]!.add(open);
    this.#slotOf.set(open, slot);
    if (round !== null) {
      let set = this.#byRound.get(round);
      if (!set) this.#byRound.set(round, set = new Set());
      set.add(open);
    }
    this.#arm();
    return open;
  }

  /** One timer for all files, while files are open. */
  #arm(): void {
    this.#timer ??= this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      const slot = this.#slots[this.#phase]!;
      this.#phase = (this.#phase + 1) % SEGMENT_LIMITS.slots;
      for (const open of slot) this.#flush(open);
      if (this.#byUser.size) this.#arm();
    }, (this.#o.flushMs ?? SEGMENT_LIMITS.flushMs) / SEGMENT_LIMITS.slots);
  }

  /**
   * Hands a file's buffer to the disk and, when due (or `indexNow`), indexes
   * what was written since its last row: journaled once fsync'd.
   */
  #flush(open: RoundFile, indexNow = false): void {
    const bytes = open.writer.buffered;
    const written = open.write();
    if (written === true) this.#pending -= bytes;
    else if (written) {
      this.#track(written.then((ok) => {
        this.#pending -= bytes;
        if (!ok && open.writer.stats().error !== null) this.#failed(open, 0);
      }));
    }
    const now = this.#o.clock.now();
    if (!indexNow && open.unindexed < this.#segmentBytes && now - open.indexedAt < this.#indexMs) return;
    const indexed = open.index(now);
    if (!indexed) return;
    this.#track(indexed.then((seg) => {
      if (typeof seg === "number") return this.#failed(open, seg);
      this.#done.push(seg);
      if (!this.#emitQueued) {
        this.#emitQueued = true;
        queueMicrotask(() => this.#emitDone());
      }
    }));
  }

  /** Keeps `work` in flight until it settles ({@link idle} waits for it). */
  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  /** {@link #close}, awaited by {@link idle}. */
  #closing(open: RoundFile): void {
    this.#track(this.#close(open));
  }

  /** Writes the rest of a file and closes it; the file is no longer open (its marker goes). */
  async #close(open: RoundFile): Promise<void> {
    if (this.#byUser.get(open.user) === open) this.#byUser.delete(open.user);
    this.#slots[this.#slotOf.get(open) ?? 0]!.delete(open);
    if (open.round !== null) {
      const set = this.#byRound.get(open.round);
      if (set?.delete(open) && set.size === 0) this.#byRound.delete(open.round);
    }
    if (this.#byUser.size === 0) {
      this.#o.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#flush(open, true);
    await open.close();
    if (open.writer.stats().error !== null) this.#failed(open, 0);
  }

  #failed(open: RoundFile, messages: number): void {
    this.counters.dropped += messages;
    if (open.failed) return;
    open.failed = true;
    this.counters.failed_files++;
    this.#o.log.error("cannot store telemetry: this player's further touches and judges in this round are dropped", {
      user: open.user,
      room: open.room,
      round: open.round ?? undefined,
      file: open.writer.path,
      error: open.writer.stats().error ?? "unknown",
    });
  }

  #emitDone(): void {
    this.#emitQueued = false;
    const done = this.#done;
    if (!done.length) return;
    this.#done = [];
    this.counters.segments += done.length;
    this.counters.records++;
    this.#o.emit({ t: "telemetry.segments", segments: done });
  }
}
