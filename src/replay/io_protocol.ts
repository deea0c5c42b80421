/**
 * Messages between {@link WorkerIo} (`worker_io.ts`) and its thread
 * (`io_worker.ts`). A batch is every operation queued in one turn of the
 * caller, with every byte it writes packed into one transferred buffer; the
 * thread answers with the ids that finished and those that failed.
 *
 * @module
 */

/** Operation codes. */
export const OP = { create: 1, write: 2, writeAt: 3, sync: 4, close: 5, touch: 6, mkdir: 7, remove: 8 } as const;

/** One operation: `[id, code, file, offset in the file (writeAt), start in the batch's bytes, length, path]`. */
export type Op = [id: number, code: number, file: number, at: number, start: number, length: number, path: string];

/** Caller → thread. */
export interface Batch {
  readonly ops: Op[];
  readonly bytes: ArrayBuffer;
}

/** Thread → caller: ids done, and ids failed with the error's class name and message. */
export interface Results {
  readonly ok: number[];
  readonly failed: [id: number, name: string, message: string][];
}
