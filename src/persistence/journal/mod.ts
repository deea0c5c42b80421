/**
 * The write-ahead journal (issue 5; issue 14 "Journal integrity"): segment
 * files of checksummed records under `data_dir/journal`, group-committed
 * fsyncs, start-up recovery of damage, the journal's identity, and reading
 * records back.
 *
 * @module
 */

export { Journal } from "./journal.ts";
export type { JournalCounters, JournalOptions } from "./journal.ts";
export type { JournalFile, OpenJournalFile } from "./files.ts";
export { JournalReader } from "./reader.ts";
export type { RawRecord } from "./reader.ts";
export type { DamagedRecordsPolicy, RecoveryCounters, SegmentInfo } from "./recovery.ts";
export { DAMAGED_DIR } from "./repair.ts";
export { bindJournal, JOURNAL_ID_FILE, readJournalId, warnJournalGap, writeJournalId } from "./identity.ts";
export type { BindJournalOptions, JournalOwner } from "./identity.ts";
