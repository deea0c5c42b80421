/**
 * Messages between {@link WorkerIo} (`worker_io.ts`) and its thread
 * (`io_worker.ts`). A batch is every operation queued within a few milliseconds by the
 * caller: their numbers in one transferred `Float64Array` ({@link FIELDS}
 * per operation), every byte they write packed into one transferred buffer,
 * and the paths of the operations that name one, in order. The thread
 * answers with the ids that finished and those that failed.
 *
 * @module
 */

/** Operation codes. */
export const OP = { create: 1, write: 2, writeAt: 3, sync: 4, close: 5, touch: 6, mkdir: 7, remove: 8 } as const;

/**
 * Numbers per operation: id, code, file, offset in the file (writeAt), start
 * in the batch's bytes, length. Id {@link UNANSWERED} is an append nobody
 * waits for: the thread answers nothing when it succeeds and fails the
 * file's next sync when it does not.
 */
export const FIELDS = 6;

/** The id of an operation without an answer ({@link FIELDS}). */
export const UNANSWERED = 0;

/** Whether an operation names a path (create, touch, mkdir, remove). */
export function hasPath(code: number): boolean {
  return code === OP.create || code >= OP.touch;
}

/** Caller -> thread. */
export interface Batch {
  /** Operations in the batch. */
  readonly count: number;
  readonly nums: ArrayBuffer;
  readonly bytes: ArrayBuffer;
  readonly paths: string[];
}

/** Thread -> caller: ids done, and ids failed with the error's class name and message. */
export interface Results {
  readonly ok: number[];
  readonly failed: [id: number, name: string, message: string][];
}
