/**
 * Writes one `.phirarec` file while a round is played: the header when the
 * round starts, entries as telemetry arrives, the record id patched in when
 * the player's `Played` arrives, and the rest on close. Entries are copied
 * into one growing buffer (no allocation per entry) and written in chunks;
 * every file operation runs in order on one chain, so the caller never waits
 * for the disk and never sees a write interleave a patch. What is waiting for
 * the disk is bounded: past `maxPendingBytes` new entries are dropped and
 * counted (a stalled disk must not grow memory).
 *
 * The stored telemetry (`src/persistence/telemetry/`) uses the same writer:
 * it writes chunks with {@link ReplayWriter.writeChunk} (the byte range is
 * known at once) and, before it indexes a range, {@link ReplayWriter.syncData}
 * -- one fsync for many chunks -- so an index row never names bytes that a
 * crash could lose.
 *
 * @module
 */

import {
  encodeHeader,
  encodeRecordId,
  ENTRY_PREFIX_BYTES,
  HEADER_BYTES,
  MAX_ENTRY_BYTES,
  RECORD_ID_OFFSET,
  type ReplayHeader,
} from "./format.ts";
import { DENO_IO, type ReplayFile, type ReplayIo } from "./io.ts";

/** Options of {@link ReplayWriter.create}. */
export interface ReplayWriterOptions {
  /** Buffered bytes that trigger a write (default 16 KiB; `Infinity`: only {@link ReplayWriter.flush} writes). */
  readonly chunkBytes?: number;
  /** Bytes buffered or in flight beyond which entries are dropped (default 4 MiB). */
  readonly maxPendingBytes?: number;
  /** Runs once a deferred writer's file exists, before anything else is written to it. */
  readonly created?: (path: string) => Promise<void>;
  /** Where the file operations run (default: Deno's asynchronous ones, on this thread). */
  readonly io?: ReplayIo;
}

/** Figures of a writer. */
export interface ReplayWriterStats {
  readonly entries: number;
  readonly bytes: number;
  /** Entries refused because too much was waiting for the disk, or after a write failed. */
  readonly dropped: number;
  /** The first write error, or null. */
  readonly error: string | null;
}

/** A chunk handed to the disk: its byte range in the file, and whether writing it succeeded. */
export interface WrittenChunk {
  readonly offset: number;
  readonly bytes: number;
  /** Whether it was written, once it was; `true` at once when a file thread took it (its failure fails the next sync). */
  readonly written: Promise<boolean> | true;
}

/** One replay file being written. */
export class ReplayWriter {
  #path: string;
  #file: ReplayFile | null;
  readonly #io: ReplayIo;
  /** Operations on the chain not finished yet. */
  #queued = 0;
  readonly #chunkBytes: number;
  readonly #maxPending: number;
  #buf: Uint8Array = EMPTY;
  #hint = 1024;
  #buffered = 0;
  #inFlight = 0;
  /** Where the next chunk handed to the disk starts in the file. */
  #end = HEADER_BYTES;
  #chain: Promise<void> = Promise.resolve();
  #entries = 0;
  #bytes = 0;
  #dropped = 0;
  #error: string | null = null;
  #closed = false;
  /** Written since the last {@link syncData} (an fsync of a clean file is skipped). */
  #dirty = false;

  private constructor(path: string, file: ReplayFile | null, options: ReplayWriterOptions) {
    this.#path = path;
    this.#file = file;
    this.#io = options.io ?? DENO_IO;
    this.#chunkBytes = options.chunkBytes ?? 16 * 1024;
    this.#maxPending = options.maxPendingBytes ?? 4 * 1024 * 1024;
  }

  /**
   * Creates the file (and its folders) with the header. Fails when the file
   * exists: a replay is never overwritten.
   */
  static async create(path: string, header: ReplayHeader, options: ReplayWriterOptions = {}): Promise<ReplayWriter> {
    const file = await (options.io ?? DENO_IO).create(path, encodeHeader(header));
    return new ReplayWriter(path, file, options);
  }

  /**
   * A writer whose file is created by its first operation, so a caller that
   * cannot wait (a bus listener) can append at once. `paths` are tried in
   * order until one does not exist yet (a replay is never overwritten); when
   * none can be created the error is kept ({@link stats}) and entries are
   * dropped from then on.
   */
  static deferred(paths: readonly string[], header: ReplayHeader, options: ReplayWriterOptions = {}): ReplayWriter {
    if (!paths.length) throw new RangeError("Cannot defer a replay file without a path");
    const writer = new ReplayWriter(paths[0]!, null, options);
    const io = options.io ?? DENO_IO;
    void writer.#enqueue(async () => {
      for (const path of paths) {
        try {
          writer.#file = await io.create(path, encodeHeader(header));
          writer.#path = path;
          await options.created?.(path);
          return;
        } catch (error) {
          if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        }
      }
      throw new Error(`Cannot create a replay file: ${paths.length} names from ${paths[0]} are taken`);
    });
    return writer;
  }

  /** The file's path (for a deferred writer, the one it got once created). */
  get path(): string {
    return this.#path;
  }

  /** The current figures. */
  stats(): ReplayWriterStats {
    return { entries: this.#entries, bytes: this.#bytes, dropped: this.#dropped, error: this.#error };
  }

  /** Bytes appended and not handed to the disk yet. */
  get buffered(): number {
    return this.#buffered;
  }

  /** Appends one entry (a wire payload, copied); never waits. False when it was dropped. */
  append(payload: Uint8Array): boolean {
    const size = ENTRY_PREFIX_BYTES + payload.length;
    if (
      this.#closed || this.#error !== null || payload.length > MAX_ENTRY_BYTES ||
      this.#buffered + this.#inFlight + size > this.#maxPending
    ) {
      this.#dropped++;
      return false;
    }
    if (this.#buffered + size > this.#buf.length) this.#grow(this.#buffered + size);
    const buf = this.#buf;
    let at = this.#buffered;
    const n = payload.length;
    // The u32 LE length prefix (format.ts), written without a DataView per entry.
    buf[at] = n & 0xff;
    buf[at + 1] = (n >>> 8) & 0xff;
    buf[at + 2] = (n >>> 16) & 0xff;
    buf[at + 3] = n >>> 24;
    at += ENTRY_PREFIX_BYTES;
    buf.set(payload, at);
    this.#buffered = at + n;
    this.#entries++;
    this.#bytes += size;
    if (this.#buffered >= this.#chunkBytes) void this.#flushBuffer();
    return true;
  }

  /** Patches the record id into the header (spec: when the player's `Played` arrives). */
  setRecordId(recordId: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    void this.#flushBuffer();
    return this.#enqueue(async () => {
      await this.#file!.writeAt(RECORD_ID_OFFSET, encodeRecordId(recordId));
      this.#dirty = true;
    });
  }

  /** Writes what is buffered; resolves once everything queued so far is on disk. */
  flush(): Promise<void> {
    void this.#flushBuffer();
    return this.#chain;
  }

  /**
   * Hands what is buffered to the disk as one chunk: its byte range at once,
   * and whether it was written once it was. Null when nothing was buffered.
   */
  writeChunk(): WrittenChunk | null {
    if (!this.#buffered) return null;
    const offset = this.#end;
    const bytes = this.#buffered;
    return { offset, bytes, written: this.#flushBuffer() };
  }

  /**
   * fsyncs the file after everything queued so far (one fsync for any number
   * of chunks); resolves with false when a write or the fsync failed.
   */
  syncData(): Promise<boolean> {
    if (this.#closed) return this.#chain.then(() => this.#error === null);
    return this.#enqueue(async () => {
      if (!this.#dirty) return; // Nothing written since the last fsync (a file closed right after its last index).
      await this.#file!.sync();
      this.#dirty = false;
    }).then(() => this.#error === null);
  }

  /** Writes the rest and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return await this.#chain;
    void this.#flushBuffer();
    this.#closed = true;
    await this.#enqueue(async () => {
      const file = this.#file;
      this.#file = null;
      await file?.close();
    });
  }

  #grow(need: number): void {
    let size = Math.max(this.#buf.length * 2, this.#hint);
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#buffered));
    this.#buf = next;
  }

  /**
   * Writes what is buffered; resolves with false when nothing was buffered
   * or the write failed, or is true at once when the bytes were handed to a
   * file thread (a failure then shows at the next {@link syncData}).
   */
  #flushBuffer(): Promise<boolean> | true {
    if (!this.#buffered) return Promise.resolve(false);
    const file = this.#file;
    if (this.#queued === 0 && file?.append && this.#error === null) {
      // To a file thread at once when nothing else is queued (so the order of writes holds): the thread copies the
      // bytes, so the buffer stays this file's for the next appends instead of a new one every 500 ms, and nothing
      // waits for an answer -- no promise per flush (issue 15: at 1,000 rooms those were tens of MB/s of garbage).
      const bytes = this.#buffered;
      file.append(this.#buf.subarray(0, bytes));
      this.#buffered = 0;
      this.#end += bytes;
      this.#dirty = true;
      return true;
    }
    // The buffer itself goes to the disk; the next append starts a new one (sized like this one).
    const chunk = this.#buf.subarray(0, this.#buffered);
    // The next buffer is made by the next append (an idle file holds none), sized like this one.
    this.#hint = Math.min(this.#buf.length, 64 * 1024);
    this.#buf = EMPTY;
    this.#inFlight += chunk.length;
    this.#buffered = 0;
    // Ranges are given out as chunks are queued: the chain writes them in this order.
    this.#end += chunk.length;
    let ok = false;
    return this.#enqueue(async () => {
      try {
        await this.#file!.write(chunk);
        this.#dirty = true;
        ok = true;
      } finally {
        this.#inFlight -= chunk.length;
      }
    }).then(() => ok);
  }

  /** Runs `op` after every earlier one; a failure is kept (later appends are dropped) and never rejects the chain. */
  #enqueue(op: () => Promise<void>): Promise<void> {
    this.#queued++;
    this.#chain = this.#chain.then(async () => {
      if (this.#error !== null) {
        // After a failure nothing more is written; closing only releases the file.
        if (this.#closed) {
          const file = this.#file;
          this.#file = null;
          await file?.close().catch(() => {});
        }
        return;
      }
      try {
        await op();
      } catch (error) {
        this.#error ??= error instanceof Error ? error.message : String(error);
      }
    }).finally(() => this.#queued--);
    return this.#chain;
  }
}

const EMPTY = new Uint8Array(0);
