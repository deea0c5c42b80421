/**
 * The file operations a replay writer needs, behind one small interface so
 * that they can run where they cost the game least: {@link DENO_IO} runs
 * them as Deno's asynchronous file operations on the calling thread, and
 * `WorkerIo` (`worker_io.ts`) runs them on a thread of their own (issue 15:
 * at 1,000 rooms the telemetry files' writes, fsyncs, opens and markers were
 * a sixth of the event loop's time). Errors keep Deno's classes
 * (`Deno.errors.AlreadyExists`, `NotFound`, ...) whichever implementation ran.
 *
 * @module
 */

import { dirname } from "node:path";

/** One open file of a {@link ReplayIo}; its operations must not overlap (the writer chains them). */
export interface ReplayFile {
  /** Appends `bytes` at the end. */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Appends `bytes` at the end without an answer (io on another thread): the
   * bytes are copied before it returns, and a failure fails this file's next
   * {@link sync}. Writers use it for their periodic flushes, which then cost no
   * promise (issue 15).
   */
  append?(bytes: Uint8Array): void;
  /** Writes `bytes` at `offset` (the header's record id) and leaves the end where it was. */
  writeAt(offset: number, bytes: Uint8Array): Promise<void>;
  /** fsyncs the file's data. */
  sync(): Promise<void>;
  /** Closes the file. */
  close(): Promise<void>;
}

/** File operations of replay writers. */
export interface ReplayIo {
  /**
   * Creates `path` (and its folders) holding `first`; rejects with
   * `Deno.errors.AlreadyExists` when the file exists (a replay is never overwritten).
   */
  create(path: string, first: Uint8Array): Promise<ReplayFile>;
  /** Creates or truncates an empty file; `Deno.errors.NotFound` when its folder is missing. */
  touch(path: string): Promise<void>;
  /** Makes a folder and its parents. */
  mkdir(path: string): Promise<void>;
  /** Removes a file; a missing one is not an error. */
  remove(path: string): Promise<void>;
}

class DenoFile implements ReplayFile {
  constructor(readonly file: Deno.FsFile) {}

  write(bytes: Uint8Array): Promise<void> {
    return writeFully(this.file, bytes);
  }

  async writeAt(offset: number, bytes: Uint8Array): Promise<void> {
    await this.file.seek(offset, Deno.SeekMode.Start);
    await writeFully(this.file, bytes);
    await this.file.seek(0, Deno.SeekMode.End);
  }

  sync(): Promise<void> {
    return this.file.syncData();
  }

  close(): Promise<void> {
    this.file.close();
    return Promise.resolve();
  }
}

/** Deno's asynchronous file operations, on the calling thread. */
export const DENO_IO: ReplayIo = {
  async create(path, first) {
    await Deno.mkdir(dirname(path), { recursive: true });
    const file = await Deno.open(path, { write: true, createNew: true });
    try {
      await writeFully(file, first);
    } catch (error) {
      file.close();
      throw error;
    }
    return new DenoFile(file);
  },
  touch: (path) => Deno.writeFile(path, EMPTY),
  mkdir: (path) => Deno.mkdir(path, { recursive: true }),
  remove: (path) =>
    Deno.remove(path).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }),
};

const EMPTY = new Uint8Array(0);

async function writeFully(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await file.write(bytes.subarray(at));
}
