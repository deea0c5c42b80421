/**
 * One player's telemetry file of one round (issue 15), as the segment store
 * drives it: the `.phirarec` writer (`src/replay/writer.ts`, created on its
 * first write), the open marker that lets start-up find it after a crash
 * (`recovery.ts`), and what the bytes written since the last index row hold
 * (their range, messages and items per kind, first and last time).
 *
 * Writing and indexing are two steps: {@link RoundFile.write} hands the
 * buffer to the disk (every 500 ms, spec 3 §8), {@link RoundFile.index}
 * fsyncs once for everything written since the last row and then gives the
 * row for that range (every few seconds): an fsync and a database row per
 * index period rather than per write, and a row never names bytes a crash
 * could lose.
 *
 * @module
 */

import { join } from "node:path";
import { DENO_IO, isReplayId, isReplayTimestamp, type ReplayIo, ReplayWriter } from "../../replay/mod.ts";
import { markerName } from "./recovery.ts";
import { OPEN_MARKERS, type TelemetrySegment } from "./segment_types.ts";

/** Where a round file is and what it belongs to. */
export interface RoundFileInit {
  /** The telemetry folder. */
  readonly dir: string;
  readonly room: string;
  readonly roomUuid: string;
  readonly round: string | null;
  readonly user: number;
  /** Chart id for the header and the path (0 when unknown). */
  readonly chart: number;
  /** The round's start (ms): the file's name; the next free millisecond is used if taken. */
  readonly startedAt: number;
  readonly maxPendingBytes: number;
  readonly nameAttempts: number;
  /** Where the file operations run (default: on this thread). */
  readonly io?: ReplayIo;
}

/** The file of one player and round being written. */
export class RoundFile {
  readonly writer: ReplayWriter;
  readonly room: string;
  readonly roomUuid: string;
  readonly round: string | null;
  readonly user: number;
  readonly #dir: string;
  readonly #io: ReplayIo;
  touches = 0;
  judges = 0;
  touchItems = 0;
  judgeItems = 0;
  firstAt = 0;
  lastAt = 0;
  /** Written since the last index row: where that range starts in the file, and its length. */
  #from = 0;
  #unindexed = 0;
  /** When the last index row was taken (or the file opened), clock ms. */
  indexedAt: number;
  /** Writing failed: the rest of the round is dropped. */
  failed = false;

  private constructor(o: RoundFileInit, writer: ReplayWriter) {
    this.writer = writer;
    this.room = o.room;
    this.roomUuid = o.roomUuid;
    this.round = o.round;
    this.user = o.user;
    this.#dir = o.dir;
    this.#io = o.io ?? DENO_IO;
    this.indexedAt = o.startedAt;
  }

  /** Starts a file; null when the user id or time cannot name one (a path is built from integers only). */
  static start(o: RoundFileInit): RoundFile | null {
    if (!isReplayId(o.user) || !isReplayId(o.chart) || !isReplayTimestamp(o.startedAt)) return null;
    // One join for the folder: files open by the thousand a round (names are integers, nothing to normalize).
    const folder = join(o.dir, String(o.user), String(o.chart));
    const paths = Array.from({ length: o.nameAttempts }, (_, i) => `${folder}/${o.startedAt + i}.phirarec`);
    const markers = join(o.dir, OPEN_MARKERS);
    const io = o.io ?? DENO_IO;
    const writer = ReplayWriter.deferred(paths, { chartId: o.chart, userId: o.user, recordId: 0 }, {
      chunkBytes: Infinity,
      maxPendingBytes: o.maxPendingBytes,
      io,
      // Marks the file as being written before any segment can be torn (recovery.ts).
      created: async (path) => {
        const marker = join(markers, markerName(o.dir, path));
        try {
          await io.touch(marker);
        } catch (error) {
          // The marker folder is made when first missing, not checked for every file of every round.
          if (!(error instanceof Deno.errors.NotFound)) throw error;
          await io.mkdir(markers);
          await io.touch(marker);
        }
      },
    });
    return new RoundFile(o, writer);
  }

  /** Appends one payload of `items` items; false when the writer dropped it. */
  append(kind: "touches" | "judges", raw: Uint8Array, items: number, at: number): boolean {
    if (!this.writer.append(raw)) return false;
    if (kind === "touches") {
      this.touches++;
      this.touchItems += items;
    } else {
      this.judges++;
      this.judgeItems += items;
    }
    if (this.touches + this.judges === 1) this.firstAt = at;
    this.lastAt = at;
    return true;
  }

  /** Bytes written and not indexed yet. */
  get unindexed(): number {
    return this.#unindexed;
  }

  /**
   * Hands what is buffered to the disk; resolves with whether it was written
   * (null when nothing was buffered; `true` at once when the file thread took
   * it: a failure then shows in the next {@link index}).
   */
  write(): Promise<boolean> | true | null {
    const chunk = this.writer.writeChunk();
    if (!chunk) return null;
    if (this.#unindexed === 0) this.#from = chunk.offset;
    this.#unindexed += chunk.bytes;
    return chunk.written;
  }

  /**
   * The index row of everything written since the last one, once fsync'd; or
   * the number of messages lost when writing failed. Null when nothing was
   * written since. Call {@link write} first: what is still buffered is not in it.
   */
  index(at: number): Promise<TelemetrySegment | number> | null {
    this.indexedAt = at;
    if (this.#unindexed === 0) return null;
    const seg = {
      offset: this.#from,
      bytes: this.#unindexed,
      room: this.room,
      round: this.round,
      user: this.user,
      touches: this.touches,
      judges: this.judges,
      touch_items: this.touchItems,
      judge_items: this.judgeItems,
      first_at: this.firstAt,
      last_at: this.lastAt,
    };
    this.#unindexed = 0;
    this.touches =
      this.judges =
      this.touchItems =
      this.judgeItems =
        0;
    return this.writer.syncData().then((ok) => {
      if (!ok) return seg.touches + seg.judges;
      const file = this.writer.path.slice(this.#dir.length + 1).replaceAll("\\", "/");
      return { file, ...seg };
    });
  }

  /** Closes the file (after a last {@link write} and {@link index}): an empty file goes, and so does the marker. */
  async close(): Promise<void> {
    // Durable before its marker goes (the record-id patch may have come after the last index fsync).
    if (this.writer.stats().bytes > 0) await this.writer.syncData();
    await this.writer.close();
    const { error, bytes } = this.writer.stats();
    // A file that never got past its header holds nothing. After an error the path may be another's: left alone.
    if (error === null && bytes === 0) await this.#io.remove(this.writer.path).catch(() => {});
    if (error === null) {
      await this.#io.remove(join(this.#dir, OPEN_MARKERS, markerName(this.#dir, this.writer.path))).catch(() => {});
    }
  }
}
