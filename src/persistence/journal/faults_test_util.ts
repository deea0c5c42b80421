/**
 * Journal segment files with injectable faults, for the tests of a full
 * disk, a failing or slow fsync, and fsync coalescing: real files, with the
 * failures a disk gives (`ENOSPC` on write, `EIO` on fsync).
 *
 * @module
 */

import type { JournalFile, OpenJournalFile } from "./files.ts";

/** What the files do next; tests flip these while the journal runs. */
export interface JournalFaults {
  /** Every write fails (no space left) while set. */
  failWrites: boolean;
  /** The next write fails once, after `partialBytes` of it reached the file. */
  failNextWrite: boolean;
  partialBytes: number;
  /** Every fsync fails (I/O error) while set. */
  failSync: boolean;
  /** Each fsync waits for this first (a slow disk). */
  holdSync: Promise<void> | null;
  /** fsyncs started so far (counted after any hold). */
  syncs: number;
}

/** Segment files sharing one {@link JournalFaults}. */
export function faultyJournalFiles(): { faults: JournalFaults; open: OpenJournalFile } {
  const faults: JournalFaults = {
    failWrites: false,
    failNextWrite: false,
    partialBytes: 0,
    failSync: false,
    holdSync: null,
    syncs: 0,
  };
  const open = (path: string): JournalFile => {
    const file = Deno.openSync(path, { read: true, write: true, create: true, append: true });
    return {
      writeSync: (p) => {
        if (faults.failNextWrite || faults.failWrites) {
          if (faults.failNextWrite) {
            faults.failNextWrite = false;
            if (faults.partialBytes > 0) file.writeSync(p.subarray(0, faults.partialBytes));
          }
          throw new Deno.errors.WriteZero("No space left on device (os error 28)");
        }
        return file.writeSync(p);
      },
      truncateSync: (len) => file.truncateSync(len),
      syncSync: () => file.syncSync(),
      sync: async () => {
        if (faults.holdSync) await faults.holdSync;
        faults.syncs++;
        if (faults.failSync) throw new Deno.errors.Interrupted("Input/output error (os error 5)");
        await file.sync();
      },
      close: () => file.close(),
    };
  };
  return { faults, open };
}
