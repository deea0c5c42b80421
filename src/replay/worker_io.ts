/**
 * {@link ReplayIo} on a thread of its own (`io_worker.ts`): the operations
 * queued in one turn go over as one message, their bytes packed into one
 * transferred buffer, so the calling thread — the game's event loop — pays a
 * copy and a promise per operation instead of a system call (issue 15). The
 * thread starts with the first operation (a server that never records
 * telemetry never pays its memory) and, should it die, the operations in
 * flight fail (their files are marked failed by the writer) and the next one
 * starts a new thread.
 *
 * @module
 */

import { type Batch, OP, type Op, type Results } from "./io_protocol.ts";
import type { ReplayFile, ReplayIo } from "./io.ts";

type Waiter = { resolve: () => void; reject: (error: Error) => void };

/** Rebuilds an error of the thread with Deno's class of that name (AlreadyExists, NotFound, …). */
function errorOf(name: string, message: string): Error {
  const Class = (Deno.errors as unknown as Record<string, (new (message: string) => Error) | undefined>)[name];
  const error = Class ? new Class(message) : new Error(message);
  if (!Class) error.name = name;
  return error;
}

class WorkerFile implements ReplayFile {
  constructor(readonly io: WorkerIo, readonly id: number) {}

  write(bytes: Uint8Array): Promise<void> {
    return this.io.queue(OP.write, this.id, 0, bytes, "");
  }

  writeAt(offset: number, bytes: Uint8Array): Promise<void> {
    return this.io.queue(OP.writeAt, this.id, offset, bytes, "");
  }

  sync(): Promise<void> {
    return this.io.queue(OP.sync, this.id, 0, null, "");
  }

  close(): Promise<void> {
    return this.io.queue(OP.close, this.id, 0, null, "");
  }
}

/** File operations on a worker thread; see the module doc. */
export class WorkerIo implements ReplayIo {
  #worker: Worker | null = null;
  #nextId = 1;
  #nextFile = 1;
  readonly #waiting = new Map<number, Waiter>();
  #ops: Op[] = [];
  #chunks: Uint8Array[] = [];
  #packed = 0;
  #queued = false;
  #closed = false;
  readonly #send = () => this.#post();

  /** Operations sent and not answered yet. */
  get inFlight(): number {
    return this.#waiting.size;
  }

  /** Whether the thread is running. */
  get running(): boolean {
    return this.#worker !== null;
  }

  async create(path: string, first: Uint8Array): Promise<ReplayFile> {
    const file = this.#nextFile++;
    await this.queue(OP.create, file, 0, first, path);
    return new WorkerFile(this, file);
  }

  touch(path: string): Promise<void> {
    return this.queue(OP.touch, 0, 0, null, path);
  }

  mkdir(path: string): Promise<void> {
    return this.queue(OP.mkdir, 0, 0, null, path);
  }

  remove(path: string): Promise<void> {
    return this.queue(OP.remove, 0, 0, null, path);
  }

  /** Stops the thread; operations still in flight fail. */
  close(): void {
    this.#closed = true;
    this.#stop(new Error("the file thread was stopped"));
  }

  /** Queues one operation for this turn's batch. */
  queue(code: number, file: number, at: number, bytes: Uint8Array | null, path: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("Cannot write a file: the file thread was stopped"));
    const id = this.#nextId++;
    const length = bytes?.length ?? 0;
    this.#ops.push([id, code, file, at, this.#packed, length, path]);
    if (bytes && length) {
      this.#chunks.push(bytes);
      this.#packed += length;
    }
    if (!this.#queued) {
      this.#queued = true;
      queueMicrotask(this.#send);
    }
    return new Promise((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
  }

  #post(): void {
    this.#queued = false;
    const ops = this.#ops;
    if (!ops.length) return;
    // One buffer for the whole batch: the callers' buffers are copied once and not kept.
    const packed = new Uint8Array(this.#packed);
    let at = 0;
    for (const c of this.#chunks) {
      packed.set(c, at);
      at += c.length;
    }
    this.#ops = [];
    this.#chunks = [];
    this.#packed = 0;
    const batch: Batch = { ops, bytes: packed.buffer };
    this.#thread().postMessage(batch, [packed.buffer]);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./io_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (e: MessageEvent<Results>) => this.#results(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      this.#stop(new Error(`the file thread failed: ${e.message}`));
    };
    return this.#worker = worker;
  }

  #results(r: Results): void {
    for (const id of r.ok) {
      const w = this.#waiting.get(id);
      this.#waiting.delete(id);
      w?.resolve();
    }
    for (const [id, name, message] of r.failed) {
      const w = this.#waiting.get(id);
      this.#waiting.delete(id);
      w?.reject(errorOf(name, message));
    }
  }

  #stop(error: Error): void {
    this.#worker?.terminate();
    this.#worker = null;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of waiting) w.reject(error);
  }
}
