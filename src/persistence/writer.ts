/**
 * The write path (issue 5 "Write-ahead journal"): every durable write is
 * appended to the journal and handed to the apply worker. A write that
 * gates a reply (a login) fails its caller when the journal fails; any
 * other is kept in memory and still reaches the store, and a run of such
 * failures (a full disk fails every record) is logged once and then
 * counted per interval (`failure_log.ts`).
 *
 * @module
 */

import type { LoginJournal } from "../server/context.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { ApplyWorker } from "./apply/mod.ts";
import { isDiskFull } from "./error_text.ts";
import { FailureLog } from "./failure_log.ts";
import type { Journal } from "./journal/mod.ts";
import { loginEntry, revocationEntry } from "./recording/mod.ts";
import { errorText, type JournalEntry, PersistenceError } from "./types.ts";

/** Where records go once persistence is open. */
export interface WriteTarget {
  readonly journal: Journal;
  readonly worker: ApplyWorker;
}

/** Counters of the write path (in the `runtime persistence` report). */
export interface WriterCounters {
  /** Failed journal writes (the record was kept in memory and applied, or the gated caller failed). */
  journal_write_failures_total: number;
  /** Events or timer writes that could not be recorded (persistence closed). */
  listener_errors: number;
}

/** Journals records and hands them to the worker; see the module doc. */
export class RecordWriter {
  readonly counters: WriterCounters = { journal_write_failures_total: 0, listener_errors: 0 };
  readonly #log: Logger;
  readonly #failures: FailureLog;
  #target: WriteTarget | null = null;
  #lastError: string | null = null;

  constructor(o: { readonly clock: Pick<Clock, "now">; readonly log: Logger }) {
    this.#log = o.log;
    this.#failures = new FailureLog({
      log: o.log,
      clock: o.clock,
      message: "journal write failed; the record is kept in memory and applied to the store",
      recovered: "journal writes work again",
    });
  }

  /** The last error of any persistence part. */
  get lastError(): string | null {
    return this.#lastError;
  }

  /** Notes the error of another part (a periodic job) as the last one. */
  noteError(text: string): void {
    this.#lastError = text;
  }

  /** Starts accepting writes. */
  open(target: WriteTarget): void {
    this.#target = target;
  }

  /** Refuses writes from now on (persistence closed). */
  close(): void {
    this.#target = null;
  }

  /**
   * Journals one record and hands it to the worker; returns its sequence.
   * `gate` marks a write whose failure must fail the caller (a login);
   * otherwise a failed append is counted and the record still reaches the
   * store from memory. `body` is the entry's JSON when the caller made it
   * already (telemetry bundles), so it is serialized once.
   */
  write(entry: JournalEntry, gate = false, body?: string): number {
    const target = this.#target;
    if (!target) throw new PersistenceError("closed", `Cannot write a "${entry.t}" record: persistence is not open`);
    let seq: number;
    try {
      seq = body === undefined ? target.journal.append(entry) : target.journal.append(entry, body);
    } catch (error) {
      this.counters.journal_write_failures_total++;
      this.#lastError = errorText(error);
      const failedSeq = (error as { seq?: number }).seq;
      if (gate || failedSeq === undefined) throw error;
      this.#failures.failed({ seq: failedSeq, type: entry.t, error: this.#lastError });
      target.worker.admit(failedSeq, entry, false, body);
      return failedSeq;
    }
    this.#failures.succeeded();
    target.worker.admit(seq, entry, true, body);
    if (!gate) target.journal.requestSync();
    return seq;
  }

  /** For writes from timers and the bus, which must not throw: a closed store is logged and counted. */
  quietly(entry: JournalEntry, body?: string): void {
    try {
      this.write(entry, false, body);
    } catch (error) {
      this.listenerFailed("cannot record", error, { type: entry.t });
    }
  }

  /** Counts and logs a failure to record something from a listener or timer. */
  listenerFailed(msg: string, error: unknown, fields: Record<string, unknown>): void {
    this.counters.listener_errors++;
    this.#lastError = errorText(error);
    this.#log.error(msg, { ...fields, error: this.#lastError });
  }

  /**
   * A write that gates a reply (a login, spec 3 §3.2): resolves once its
   * record is on the disk. A failure says whether the record was written
   * (`committed`: only its flush failed, so it must be compensated) and
   * whether the disk is full (`diskFull`, for the refusal the player gets).
   */
  async durable(entry: JournalEntry): Promise<void> {
    let journal: Journal;
    try {
      this.write(entry, true);
      journal = this.#target!.journal; // Open: the write went through.
    } catch (error) {
      throw storageError(error, false);
    }
    try {
      await journal.sync();
    } catch (error) {
      // The record is written and handed to the worker: it will be applied unless compensated.
      throw storageError(error, true);
    }
  }
}

function storageError(error: unknown, committed: boolean): Error {
  const e = error instanceof Error ? error : new Error(errorText(error));
  return Object.assign(e, { committed, diskFull: isDiskFull(e.message) });
}

/** The login durability gate of the server context (spec 3 §3.2), journaling through `writer`. */
export function durableLogins(writer: RecordWriter, instance: string, clock: Pick<Clock, "now">): LoginJournal {
  return {
    // spec 3 §3.2: Authenticating -> DurableAccepted once this record is on disk.
    recordLogin: (login) => writer.durable(loginEntry(login, instance)),
    // spec 3 §3.2 rollback "compensation sent": applied after the login, it takes the login back.
    revokeLogin: (login, reason) => writer.quietly(revocationEntry(login, instance, reason, clock.now())),
  };
}
