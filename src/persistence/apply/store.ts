/**
 * The store: one interface over either backend (issue 5 "Stores"). It
 * applies journal batches exactly once -- the batch's rows and the applied
 * watermark commit in one transaction -- keeps the dead-letter list, and
 * answers the read queries (`queries/`).
 *
 * @module
 */

import { planBatch } from "./plan.ts";
import { SQL } from "./sql.ts";
import { type Backend, num, type Row, type SqlDb } from "../backends/mod.ts";
import { errorText, PersistenceError, type SeqEntry } from "../types.ts";

/** A record that kept failing, with its error (issue 5 "dead-letter list"). */
export interface DeadLetter {
  readonly seq: number;
  /** The record's JSON as journaled (may be unparseable when that was the failure). */
  readonly body: string;
  readonly error: string;
  readonly attempts: number;
  readonly failed_at: number;
}

/** Outcome of replaying one dead letter. */
export interface ReplayOutcome {
  readonly seq: number;
  readonly ok: boolean;
  readonly error?: string;
}

/**
 * The database's `applied_seq` counts another journal's sequences than the
 * one applying (`journal/identity.ts`). The apply worker treats it like an
 * outage: records wait in the journal, nothing is skipped or dead-lettered.
 */
export class JournalMismatchError extends PersistenceError {
  constructor(ours: string, theirs: string | null) {
    super(
      "journal_identity",
      `Cannot apply journal records: the database now belongs to journal ${theirs ?? "(none)"}, not to this ` +
        `server's journal ${ours} (another server took the database over); records wait in the journal`,
    );
  }
}

/** Journal application and dead letters over a {@link SqlDb}. */
export class Store {
  readonly db: SqlDb;
  /** The journal this store applies (set once bound; every batch checks it inside its transaction). */
  #journalId: string | null = null;

  constructor(db: SqlDb) {
    this.db = db;
  }

  /** The identity of the journal whose sequences the database counts, or null when none is bound. */
  async journalId(): Promise<string | null> {
    const [row] = await this.db.query("SELECT journal_id FROM journal_state WHERE id = 1");
    return typeof row?.journal_id === "string" ? row.journal_id : null;
  }

  /**
   * Records `id` as the database's journal. `expected` is the identity the
   * caller saw: the update happens only if it is still there, so two
   * servers cannot both take the database over; returns false otherwise.
   * From now on every batch checks the identity in its transaction.
   */
  async bindJournal(id: string, expected: string | null, now: number): Promise<boolean> {
    const rows = await this.db.query(
      "UPDATE journal_state SET journal_id = $1, updated_at = $3 WHERE id = 1 AND journal_id IS NOT DISTINCT FROM $2 RETURNING id",
      [id, expected, now],
    );
    if (rows.length === 0) return false;
    this.#journalId = id;
    return true;
  }

  /** Locks the journal state row for the transaction: `FOR UPDATE` on PostgreSQL; SQLite's `BEGIN IMMEDIATE` holds the whole file. */
  get #forUpdate(): string {
    return this.db.backend === "postgres" ? " FOR UPDATE" : "";
  }

  /** Checks this store's journal against the row just locked (`FOR UPDATE`). */
  #checkJournal(row: Row | undefined): void {
    if (this.#journalId === null) return;
    const theirs = typeof row?.journal_id === "string" ? row.journal_id : null;
    if (theirs !== this.#journalId) throw new JournalMismatchError(this.#journalId, theirs);
  }

  /** The backend in use. */
  get backend(): Backend {
    return this.db.backend;
  }

  /** Highest journal sequence applied (or dead-lettered). */
  async appliedSeq(): Promise<number> {
    const [row] = await this.db.query("SELECT applied_seq FROM journal_state WHERE id = 1");
    return num(row?.applied_seq ?? 0);
  }

  /**
   * Applies `batch` (ascending) and moves the watermark to `through`, in one
   * transaction. Records at or below the watermark are skipped, so applying
   * a batch again changes nothing (idempotent by sequence). A backend that
   * runs guarded batches elsewhere (`SqlDb.runGuarded`: SQLite's thread)
   * gets the planned statements with the watermark and journal checks as
   * their guard; when those fail it hands back what it read and the batch is
   * checked and planned again here, as in one transaction.
   */
  async applyBatch(batch: readonly SeqEntry[], through: number, now: number): Promise<void> {
    if (!this.db.runGuarded) return await this.#applyInTransaction(batch, through, now);
    let fresh = batch;
    while (fresh[0]) {
      const guard = {
        sql: `SELECT applied_seq${this.#journalId === null ? "" : ", journal_id"} FROM journal_state WHERE id = 1`,
        below: { column: "applied_seq", value: fresh[0].seq },
        ...(this.#journalId === null ? {} : { equal: { journal_id: this.#journalId } }),
      };
      let statements;
      try {
        statements = planBatch(fresh, through, now, this.db.backend);
      } catch {
        // A record that cannot be planned may be one applied (or dead-lettered) already, which the
        // transaction below skips unplanned; otherwise it fails there as it does here.
        return await this.#applyInTransaction(fresh, through, now);
      }
      const { ran, row } = await this.db.runGuarded(guard, statements);
      if (ran) return;
      this.#checkJournal(row);
      const applied = num(row?.applied_seq ?? 0);
      const left = fresh.filter((b) => b.seq > applied);
      // The guard failed on the watermark, so at least the first record is applied: the loop ends.
      if (left.length === fresh.length) throw new Error(`A guarded batch failed at watermark ${applied}`);
      fresh = left;
    }
  }

  /** {@link applyBatch} in one transaction of the caller's connection: the watermark read and checked, then the statements. */
  async #applyInTransaction(batch: readonly SeqEntry[], through: number, now: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `SELECT applied_seq${
          this.#journalId === null ? "" : ", journal_id"
        } FROM journal_state WHERE id = 1${this.#forUpdate}`,
      );
      this.#checkJournal(row);
      const applied = num(row?.applied_seq ?? 0);
      const fresh = batch[0] && batch[0].seq > applied ? batch : batch.filter((b) => b.seq > applied);
      if (fresh.length === 0) return;
      for (const s of planBatch(fresh, through, now, this.db.backend)) await tx.query(s.sql, s.params);
    });
  }

  /** Puts a failing record on the dead-letter list and moves the watermark past it, in one transaction. */
  async deadLetter(seq: number, body: string, error: string, attempts: number, now: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (this.#journalId !== null) {
        this.#checkJournal((await tx.query(`SELECT journal_id FROM journal_state WHERE id = 1${this.#forUpdate}`))[0]);
      }
      await tx.query(
        `INSERT INTO dead_letters (seq, body, error, attempts, failed_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (seq) DO UPDATE SET error = EXCLUDED.error, attempts = EXCLUDED.attempts, failed_at = EXCLUDED.failed_at`,
        [seq, body, error, attempts, now],
      );
      await tx.query(SQL[this.db.backend].watermark, [seq, now]);
    });
  }

  /** The dead-letter list, oldest first. */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    const rows = await this.db.query(
      "SELECT seq, body, error, attempts, failed_at FROM dead_letters ORDER BY seq LIMIT $1",
      [limit],
    );
    return rows.map((r) => ({
      seq: num(r.seq),
      body: String(r.body),
      error: String(r.error),
      attempts: num(r.attempts),
      failed_at: num(r.failed_at),
    }));
  }

  /** Number of dead letters. */
  async deadLetterCount(): Promise<number> {
    const [row] = await this.db.query("SELECT COUNT(*) AS n FROM dead_letters");
    return num(row?.n ?? 0);
  }

  /**
   * Applies one dead letter again; on success it leaves the list in the same
   * transaction (so a replay is never applied twice), otherwise its error
   * and attempt count are updated.
   */
  async replayDeadLetter(letter: DeadLetter, now: number): Promise<ReplayOutcome> {
    try {
      const entry = JSON.parse(letter.body);
      const statements = planBatch([{ seq: letter.seq, entry }], 0, now, this.db.backend);
      await this.db.transaction(async (tx) => {
        const gone = await tx.query("DELETE FROM dead_letters WHERE seq = $1 RETURNING seq", [letter.seq]);
        if (gone.length === 0) return; // Replayed meanwhile.
        for (const s of statements) await tx.query(s.sql, s.params);
      });
      return { seq: letter.seq, ok: true };
    } catch (error) {
      const text = errorText(error);
      await this.db.query(
        "UPDATE dead_letters SET error = $2, attempts = attempts + 1, failed_at = $3 WHERE seq = $1",
        [
          letter.seq,
          text,
          now,
        ],
      );
      return { seq: letter.seq, ok: false, error: text };
    }
  }
}
