/**
 * {@link ReplayIo} on a thread of its own (`io_worker.ts`): the operations
 * queued within {@link BATCH_MS} go over as one message, their bytes packed into one
 * transferred buffer, so the calling thread -- the game's event loop -- pays a
 * copy and a promise per operation instead of a system call (issue 15). The
 * thread starts with the first operation (a server that never records
 * telemetry never pays its memory) and, should it die, the operations in
 * flight fail (their files are marked failed by the writer) and the next one
 * starts a new thread.
 *
 * @module
 */

import { type Batch, FIELDS, hasPath, OP, type Results, UNANSWERED } from "./io_protocol.ts";
import type { ReplayFile, ReplayIo } from "./io.ts";
import { workerScript } from "../util/program_files.ts";

/** How long operations wait to be sent with others, ms (a file's operations are not urgent; the game is). */
export const BATCH_MS = 4;

/** The power of two at or above `n`. */
function ceilPow2(n: number): number {
  return 2 ** Math.ceil(Math.log2(n));
}

type Waiter = { resolve: () => void; reject: (error: Error) => void };

/** Rebuilds an error of the thread with Deno's class of that name (AlreadyExists, NotFound, ...). */
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

  append(bytes: Uint8Array): void {
    this.io.add(UNANSWERED, OP.write, this.id, 0, bytes, "");
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
  /** The next batch: numbers, bytes (copied in as queued) and paths. */
  #nums = new Float64Array(FIELDS * 256);
  #count = 0;
  #pack = new Uint8Array(4096);
  #packed = 0;
  #paths: string[] = [];
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

  /** Queues one operation for the next batch; resolves once the thread ran it. */
  queue(code: number, file: number, at: number, bytes: Uint8Array | null, path: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("Cannot write a file: the file thread was stopped"));
    const id = this.#nextId++;
    this.add(id, code, file, at, bytes, path);
    return new Promise((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
  }

  /**
   * Adds one operation to the next batch, its bytes copied. With id
   * {@link UNANSWERED} nothing waits for it: a failure (or a stopped thread)
   * fails the file's next sync instead.
   */
  add(id: number, code: number, file: number, at: number, bytes: Uint8Array | null, path: string): void {
    if (this.#closed) return;
    const length = bytes?.length ?? 0;
    if ((this.#count + 1) * FIELDS > this.#nums.length) {
      const grown = new Float64Array(this.#nums.length * 2);
      grown.set(this.#nums);
      this.#nums = grown;
    }
    const nums = this.#nums;
    const o = this.#count++ * FIELDS;
    nums[o] = id;
    nums[o + 1] = code;
    nums[o + 2] = file;
    nums[o + 3] = at;
    nums[o + 4] = this.#packed;
    nums[o + 5] = length;
    if (bytes && length) {
      if (this.#packed + length > this.#pack.length) {
        let size = this.#pack.length * 2;
        while (size < this.#packed + length) size *= 2;
        const pack = new Uint8Array(size);
        pack.set(this.#pack.subarray(0, this.#packed));
        this.#pack = pack;
      }
      this.#pack.set(bytes, this.#packed);
      this.#packed += length;
    }
    if (hasPath(code)) this.#paths.push(path);
    if (!this.#queued) {
      this.#queued = true;
      // A few milliseconds' operations go over together: handing a message to a thread costs tens of microseconds.
      setTimeout(this.#send, BATCH_MS);
    }
  }

  #post(): void {
    this.#queued = false;
    if (!this.#count) return;
    // Both buffers move to the thread (no copy); the next batch starts new ones.
    const batch: Batch = { count: this.#count, nums: this.#nums.buffer, bytes: this.#pack.buffer, paths: this.#paths };
    // Sized for a batch like this one: a burst (a shutdown's last writes) does not make every later batch big.
    this.#nums = new Float64Array(FIELDS * ceilPow2(Math.max(256, this.#count)));
    this.#pack = new Uint8Array(ceilPow2(Math.max(4096, this.#packed)));
    this.#count = this.#packed = 0;
    this.#paths = [];
    this.#thread().postMessage(batch, [batch.nums, batch.bytes]);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(workerScript("src/replay/io_worker.ts"), { type: "module" });
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
    // What was queued for the stopped thread is dropped with it (its callers are told below), never sent to a new one.
    this.#count = this.#packed = 0;
    this.#paths = [];
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of waiting) w.reject(error);
  }
}
