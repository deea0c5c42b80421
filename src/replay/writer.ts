/**
 * Writes one `.phirarec` file while a round is played: the header when the
 * round starts, entries as telemetry arrives, the record id patched in when
 * the player's `Played` arrives, and the rest on close. Entries are buffered
 * and written in chunks; every file operation runs in order on one chain, so
 * the caller never waits for the disk and never sees a write interleave a
 * patch. What is waiting for the disk is bounded: past `maxPendingBytes` new
 * entries are dropped and counted (a stalled disk must not grow memory).
 *
 * @module
 */

import { dirname } from "node:path";
import { encodeEntry, encodeHeader, encodeRecordId, RECORD_ID_OFFSET, type ReplayHeader } from "./format.ts";

/** Options of {@link ReplayWriter.create}. */
export interface ReplayWriterOptions {
  /** Buffered bytes that trigger a write (default 16 KiB). */
  readonly chunkBytes?: number;
  /** Bytes buffered or in flight beyond which entries are dropped (default 4 MiB). */
  readonly maxPendingBytes?: number;
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

/** One replay file being written. */
export class ReplayWriter {
  readonly path: string;
  readonly #file: Deno.FsFile;
  readonly #chunkBytes: number;
  readonly #maxPending: number;
  #buffer: Uint8Array[] = [];
  #buffered = 0;
  #inFlight = 0;
  #chain: Promise<void> = Promise.resolve();
  #entries = 0;
  #bytes = 0;
  #dropped = 0;
  #error: string | null = null;
  #closed = false;

  private constructor(path: string, file: Deno.FsFile, options: ReplayWriterOptions) {
    this.path = path;
    this.#file = file;
    this.#chunkBytes = options.chunkBytes ?? 16 * 1024;
    this.#maxPending = options.maxPendingBytes ?? 4 * 1024 * 1024;
  }

  /**
   * Creates the file (and its folders) with the header. Fails when the file
   * exists: a replay is never overwritten.
   */
  static async create(path: string, header: ReplayHeader, options: ReplayWriterOptions = {}): Promise<ReplayWriter> {
    await Deno.mkdir(dirname(path), { recursive: true });
    const file = await Deno.open(path, { write: true, createNew: true });
    try {
      await writeFully(file, encodeHeader(header));
    } catch (error) {
      file.close();
      throw error;
    }
    return new ReplayWriter(path, file, options);
  }

  /** The current figures. */
  stats(): ReplayWriterStats {
    return { entries: this.#entries, bytes: this.#bytes, dropped: this.#dropped, error: this.#error };
  }

  /** Appends one entry (a wire payload); never waits. False when it was dropped. */
  append(payload: Uint8Array): boolean {
    if (this.#closed || this.#error !== null || this.#buffered + this.#inFlight + payload.length > this.#maxPending) {
      this.#dropped++;
      return false;
    }
    const entry = encodeEntry(payload);
    this.#buffer.push(entry);
    this.#buffered += entry.length;
    this.#entries++;
    this.#bytes += entry.length;
    if (this.#buffered >= this.#chunkBytes) this.#flushBuffer();
    return true;
  }

  /** Patches the record id into the header (spec: when the player's `Played` arrives). */
  setRecordId(recordId: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#flushBuffer();
    return this.#enqueue(async () => {
      await this.#file.seek(RECORD_ID_OFFSET, Deno.SeekMode.Start);
      await writeFully(this.#file, encodeRecordId(recordId));
      await this.#file.seek(0, Deno.SeekMode.End);
    });
  }

  /** Writes what is buffered; resolves once everything queued so far is on disk. */
  flush(): Promise<void> {
    this.#flushBuffer();
    return this.#chain;
  }

  /** Writes the rest and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return await this.#chain;
    this.#flushBuffer();
    this.#closed = true;
    await this.#enqueue(() => {
      this.#file.close();
      return Promise.resolve();
    });
  }

  #flushBuffer(): void {
    if (!this.#buffered) return;
    const chunk = concat(this.#buffer, this.#buffered);
    this.#buffer = [];
    this.#inFlight += chunk.length;
    this.#buffered = 0;
    void this.#enqueue(async () => {
      try {
        await writeFully(this.#file, chunk);
      } finally {
        this.#inFlight -= chunk.length;
      }
    });
  }

  /** Runs `op` after every earlier one; a failure is kept (later appends are dropped) and never rejects the chain. */
  #enqueue(op: () => Promise<void>): Promise<void> {
    this.#chain = this.#chain.then(async () => {
      if (this.#error !== null && !this.#closed) return;
      try {
        await op();
      } catch (error) {
        this.#error ??= error instanceof Error ? error.message : String(error);
      }
    });
    return this.#chain;
  }
}

async function writeFully(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await file.write(bytes.subarray(at));
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
