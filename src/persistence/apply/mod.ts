/**
 * Applying journal records to the store (issue 5): the worker that applies
 * them in sequence order exactly once (a bounded intake, read-back from the
 * journal, retries and dead letters), and the store's batch application.
 *
 * @module
 */

export { ApplyWorker } from "./worker.ts";
export type { ApplyCounters, ApplyTarget, ApplyWorkerOptions, BatchLimits } from "./worker.ts";
export { JournalMismatchError, Store } from "./store.ts";
export type { DeadLetter, ReplayOutcome } from "./store.ts";
