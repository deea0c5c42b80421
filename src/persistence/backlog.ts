/**
 * Reading unapplied records back from the journal for the apply worker
 * (startup replay, and records that went journal-only). While one batch is
 * applied the next is already read and parsed, which overlaps file and JSON
 * work with a networked store's round trips.
 *
 * @module
 */

import type { Journal } from "./journal.ts";
import { JournalReader } from "./journal_reader.ts";
import type { JournalEntry } from "./types.ts";

/** A record waiting to be applied: parsed, or its raw body when parsing failed. */
export interface Item {
  readonly seq: number;
  readonly entry: JournalEntry | null;
  readonly raw: string | null;
  readonly journaled: boolean;
}

/** A batch read back: the journal's last sequence before the read, and the records. */
export interface BacklogBatch {
  readonly before: number;
  readonly items: Item[];
}

const decoder = new TextDecoder();

/** Parses a journaled body; a body that is not JSON keeps its raw text (for the dead-letter list). */
export function parse(seq: number, body: Uint8Array): Item {
  const raw = decoder.decode(body);
  try {
    return { seq, entry: JSON.parse(raw) as JournalEntry, raw: null, journaled: true };
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

  constructor(journal: Journal, size: number) {
    this.#reader = new JournalReader(journal);
    this.#journal = journal;
    this.#size = size;
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
    const raw = await this.#reader.read(from, this.#size);
    return { before, items: raw.map((r) => parse(r.seq, r.body)), full: raw.length === this.#size };
  }
}
