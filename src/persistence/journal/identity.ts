/**
 * Which journal a database belongs to (issue 5 "Durable persistence"; spec 3
 * §9 "startup fails closed"). Journal sequences are numbered per data
 * directory, while `journal_state.applied_seq` is one number per database:
 * a database fed by two journals silently skips the records of one of them
 * (every sequence at or below the watermark counts as applied). So each
 * journal has an identity -- a UUID in `data_dir/journal/journal.id` -- that
 * the database records in `journal_state.journal_id`, and startup refuses a
 * journal the database does not know:
 *
 * | journal file | database  | outcome |
 * |--------------|-----------|---------|
 * | J            | J         | go on |
 * | J            | none      | bind J (a new or pre-identity database) |
 * | J            | K         | refuse: a data_dir restored or copied from elsewhere, or two servers on one database |
 * | none, empty  | any       | new identity, bound; a database of journal K is taken over (logged) |
 * | none, records| none      | new identity, bound (a journal written before identities) |
 * | none, records| K         | refuse: records of unknown numbering |
 *
 * Every apply transaction then checks the identity again (`apply/store.ts`), so a
 * database taken over while this server runs (its PostgreSQL owner lock was
 * lost) makes records wait instead of being skipped.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import type { Journal } from "./journal.ts";
import { JournalReader } from "./reader.ts";
import { entrySpan, errorText, type JournalEntry, PersistenceError } from "../types.ts";

/** File of the journal's identity, inside the journal directory. */
export const JOURNAL_ID_FILE = "journal.id";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The identity stored in journal directory `dir`, or null when there is none. */
export async function readJournalId(dir: string): Promise<string | null> {
  const path = `${dir}/${JOURNAL_ID_FILE}`;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new PersistenceError("data_dir", `Cannot read the journal identity "${path}": ${errorText(error)}`);
  }
  const id = text.trim();
  if (!UUID.test(id)) {
    throw new PersistenceError(
      "journal_identity",
      `Cannot start: "${path}" does not hold a journal identity (a UUID); restore it, or move the journal directory ` +
        `aside to start a new journal`,
    );
  }
  return id;
}

/** Writes the identity durably (temporary file, fsync, rename, fsync of the directory). */
export async function writeJournalId(dir: string, id: string): Promise<void> {
  const path = `${dir}/${JOURNAL_ID_FILE}`;
  const tmp = `${path}.tmp`;
  try {
    const file = await Deno.open(tmp, { write: true, create: true, truncate: true });
    try {
      await file.write(new TextEncoder().encode(id + "\n"));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, path);
    const d = await Deno.open(dir, { read: true });
    try {
      await d.sync();
    } catch {
      // Not every platform syncs directories; the file itself is on the disk.
    } finally {
      d.close();
    }
  } catch (error) {
    throw new PersistenceError("data_dir", `Cannot write the journal identity "${path}": ${errorText(error)}`);
  }
}

/** The database's side of the binding (the apply store): which journal it counts, and taking it over. */
export interface JournalOwner {
  /** The identity of the journal whose sequences the database counts, or null. */
  journalId(): Promise<string | null>;
  /** Records `id` if the database still names `expected`; false when another server got there first. */
  bindJournal(id: string, expected: string | null, now: number): Promise<boolean>;
}

/** What {@link bindJournal} needs. */
export interface BindJournalOptions {
  readonly store: JournalOwner;
  readonly journal: Journal;
  readonly log: Logger;
  readonly now: number;
  /** Where the database is, for messages (never its URL: it may hold a password). */
  readonly database: string;
}

/** Checks the journal against the database (table in the module doc); returns the journal's identity. */
export async function bindJournal(o: BindJournalOptions): Promise<string> {
  const { store, journal, log, now } = o;
  const local = await readJournalId(journal.dir);
  const stored = await store.journalId();
  if (local !== null) {
    if (stored !== null && stored !== local) throw mismatch(o, local, stored);
    if (!await store.bindJournal(local, stored, now)) throw raced(o);
    if (stored === null) log.info("journal bound to the database", { journal_id: local });
    return local;
  }
  const records = journal.segments().some((s) => s.records > 0);
  if (records && stored !== null) {
    throw new PersistenceError(
      "journal_identity",
      `Cannot start: the journal in "${journal.dir}" has records but no identity file (${JOURNAL_ID_FILE}), and ` +
        `${o.database} belongs to journal ${stored}; its records cannot be told apart from that journal's. ` +
        `Restore ${JOURNAL_ID_FILE}, or, if this journal holds nothing unapplied, move "${journal.dir}" aside to ` +
        `start a new journal that takes the database over.`,
    );
  }
  const id = crypto.randomUUID();
  // The database first: a crash before the file is written leaves a journal without identity, which binds again.
  if (!await store.bindJournal(id, stored, now)) throw raced(o);
  await writeJournalId(journal.dir, id);
  if (stored !== null) {
    log.warn("a new journal takes the database over; a server still using the old journal will refuse to start", {
      journal_id: id,
      previous_journal_id: stored,
    });
  } else log.info("journal bound to the database", { journal_id: id });
  return id;
}

/**
 * Warns when sequences after the database's watermark are missing from the
 * journal: they are in neither place (segments deleted by hand, or a
 * journal restored from an older copy), and the records there are lost.
 */
export async function warnJournalGap(journal: Journal, applied: number, log: Logger): Promise<void> {
  const [first] = await new JournalReader(journal).read(0, 1);
  if (!first) return;
  let start = first.seq;
  try {
    start = first.seq - entrySpan(JSON.parse(new TextDecoder().decode(first.body)) as JournalEntry) + 1;
  } catch {
    // Unparseable: the apply worker dead-letters it; its sequence is enough here.
  }
  if (applied + 1 >= start) return;
  log.warn("journal: records after the database's applied sequence are missing from the journal; they are lost", {
    applied_seq: applied,
    first_journal_seq: start,
    missing: start - applied - 1,
    journal: journal.dir,
  });
}

function mismatch(o: BindJournalOptions, local: string, stored: string): PersistenceError {
  const dir = o.journal.dir;
  return new PersistenceError(
    "journal_identity",
    `Cannot start: the journal in "${dir}" (identity ${local}) is not the journal of ${o.database}, which counts ` +
      `the sequences of journal ${stored}. Journals number their records independently, so this one's records ` +
      `would be skipped as already applied. This happens when data_dir was restored or copied from another ` +
      `server, or when servers with different data_dirs share one database. Point database_url at this data_dir's ` +
      `own database or use the data_dir that belongs to this one; if this journal holds nothing unapplied, move ` +
      `"${dir}" aside to start a new journal that takes the database over.`,
  );
}

function raced(o: BindJournalOptions): PersistenceError {
  return new PersistenceError(
    "journal_identity",
    `Cannot start: another server bound its journal to ${o.database} at the same time; only one server may use it`,
  );
}
