/**
 * Reading unapplied records back from the journal for the apply worker
 * (startup replay, and records that went journal-only). While one batch is
 * applied the next is already read and parsed, which overlaps file and JSON
 * work with a networked store's round trips.
 *
 * @module
 */

import { type Journal, JournalReader } from "../journal/mod.ts";
import type { JournalEntry } from "../types.ts";

/** A record waiting to be applied: parsed (null when parsing failed), and its JSON when at hand. */
export interface Item {
  readonly seq: number;
  readonly entry: JournalEntry | null;
  /** The body as journaled: always for records read back, for telemetry bundles also from memory. */
  readonly raw: string | null;
  readonly journaled: boolean;
}

/** Bytes an item stands for in the queue's and batches' byte limits (small records count 256). */
export function itemBytes(item: Item): number {
  return item.raw === null ? 256 : item.raw.length;
}

/** A batch read back: the journal's last sequence before the read, and the records. */
export interface BacklogBatch {
  readonly before: number;
  readonly items: Item[];
}

const decoder = new TextDecoder();

/** Parses a journaled body, keeping its text (a bundle is unpacked from it; a bad body is dead-lettered as is). */
export function parse(seq: number, body: Uint8Array): Item {
  const raw = decoder.decode(body);
  try {
    return { seq, entry: JSON.parse(raw) as JournalEntry, raw, journaled: true };
  } catch {
    return { seq, entry: null, raw, journaled: true };
  }
}

/** Sequential reads with one batch of read-ahead. */
export class Backlog {
  readonly #reader: JournalReader;
  readonly #journal: Journal;
  readonly #size: number;
  #prefetch: { from: number; read: Promise<BacklogBatch & { full: boolean }> } | null = null;

  readonly #maxBytes: () => number;

  /**
   * Batches of at most `size` records, ending with the record whose body
   * reaches `maxBytes` in total (asked for each read when a function).
   */
  constructor(journal: Journal, size: number, maxBytes: number | (() => number) = Infinity) {
    this.#reader = new JournalReader(journal);
    this.#journal = journal;
    this.#size = size;
    this.#maxBytes = typeof maxBytes === "number" ? () => maxBytes : maxBytes;
  }

  /** Up to one batch of records with sequence `>= from`. */
  async read(from: number): Promise<BacklogBatch> {
    const pre = this.#prefetch;
    this.#prefetch = null;
    const batch = await (pre?.from === from ? pre.read : this.#read(from));
    if (batch.full) {
      const next = batch.items.at(-1)!.seq + 1;
      const read = this.#read(next);
      read.catch(() => {}); // Surfaces when consumed.
      this.#prefetch = { from: next, read };
    }
    return batch;
  }

  /** Waits for a read-ahead in flight. */
  async close(): Promise<void> {
    await this.#prefetch?.read.catch(() => {});
    this.#prefetch = null;
  }

  async #read(from: number): Promise<BacklogBatch & { full: boolean }> {
    const before = this.#journal.lastSeq;
    const maxBytes = this.#maxBytes();
    const raw = await this.#reader.read(from, this.#size, maxBytes);
    const bytes = raw.reduce((n, r) => n + r.body.length, 0);
    return {
      before,
      items: raw.map((r) => parse(r.seq, r.body)),
      full: raw.length === this.#size || bytes >= maxBytes,
    };
  }
}
