/**
 * {@link PasswordHasher} over module workers (`password_worker.ts`): hashing
 * leaves the event loop. Requests are spread round-robin; at most
 * `maxPending` may wait at once, beyond that a call fails with
 * {@link HasherBusyError} (the API answers 503 `busy`) instead of queueing
 * without bound. A worker that dies is replaced on the next call. When
 * workers cannot be started at all (a build without the worker file),
 * hashing falls back to the calling thread, once logged.
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import {
  argon2Check,
  argon2Hash,
  type Argon2Params,
  DEFAULT_ARGON2,
  type PasswordHasher,
  weakerThan,
} from "./passwords.ts";
import type { PasswordReply, PasswordRequest } from "./password_worker.ts";
import { workerScript } from "../util/program_files.ts";

/** Too many password operations are waiting. */
export class HasherBusyError extends Error {
  override readonly name = "HasherBusyError";
}

/** Options of {@link WorkerHasher}. */
export interface WorkerHasherOptions {
  readonly params?: Argon2Params;
  /** Worker threads (default 1: the reference VPS has 2 cores shared with the game). */
  readonly workers?: number;
  /** Operations in flight or waiting at most (default 64). */
  readonly maxPending?: number;
  readonly log?: Logger;
}

/** A request without its id (distributed over the union, so each variant keeps its fields). */
type Job = PasswordRequest extends infer R ? R extends PasswordRequest ? Omit<R, "id"> : never : never;

type Waiter = { resolve: (value: string | boolean) => void; reject: (error: Error) => void };

/** The worker died before it ever answered: it cannot be loaded here. */
class WorkerUnavailable extends Error {
  override readonly name = "WorkerUnavailable";
}

class Lane {
  readonly worker: Worker;
  readonly pending = new Map<number, Waiter>();
  dead = false;
  answered = false;

  constructor(onDead: (lane: Lane) => void) {
    this.worker = new Worker(workerScript("src/accounts/password_worker.ts"), { type: "module" });
    this.worker.onmessage = (e: MessageEvent<PasswordReply>) => {
      this.answered = true;
      const waiter = this.pending.get(e.data.id);
      this.pending.delete(e.data.id);
      if (!waiter) return;
      if ("error" in e.data) waiter.reject(new Error(`Cannot hash the password: ${e.data.error}`));
      else waiter.resolve(e.data.result);
    };
    this.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault(); // a failing worker must not take the service down
      const why = `Cannot hash the password: the worker failed (${e.message})`;
      this.kill(this.answered ? new Error(why) : new WorkerUnavailable(why));
      onDead(this);
    };
  }

  kill(error: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate();
    for (const w of this.pending.values()) w.reject(error);
    this.pending.clear();
  }
}

/** Argon2id in worker threads. */
export class WorkerHasher implements PasswordHasher {
  readonly #params: Argon2Params;
  readonly #size: number;
  readonly #maxPending: number;
  readonly #log: Logger | undefined;
  #lanes: Lane[] = [];
  #turn = 0;
  #next = 1;
  #inFlight = 0;
  #inline = false;
  #closed = false;

  constructor(o: WorkerHasherOptions = {}) {
    this.#params = o.params ?? DEFAULT_ARGON2;
    this.#size = Math.max(1, o.workers ?? 1);
    this.#maxPending = Math.max(1, o.maxPending ?? 64);
    this.#log = o.log;
  }

  /** Operations in flight or waiting now. */
  get pending(): number {
    return this.#inFlight;
  }

  hash(password: string): Promise<string> {
    return this.#run({ op: "hash", password, params: this.#params }) as Promise<string>;
  }

  verify(password: string, encoded: string): Promise<boolean> {
    return this.#run({ op: "verify", password, encoded }) as Promise<boolean>;
  }

  needsRehash(encoded: string): boolean {
    return weakerThan(encoded, this.#params);
  }

  close(): void {
    this.#closed = true;
    for (const lane of this.#lanes) lane.kill(new Error("Cannot hash the password: the service is stopping"));
    this.#lanes = [];
  }

  async #run(request: Job): Promise<string | boolean> {
    if (this.#closed) throw new Error("Cannot hash the password: the service is stopping");
    if (this.#inFlight >= this.#maxPending) {
      throw new HasherBusyError("Cannot hash the password: too many logins at once");
    }
    this.#inFlight++;
    try {
      const lane = this.#inline ? null : this.#lane();
      if (!lane) return await this.#inlineRun(request);
      const id = this.#next++;
      try {
        return await new Promise<string | boolean>((resolve, reject) => {
          lane.pending.set(id, { resolve, reject });
          lane.worker.postMessage({ id, ...request } as PasswordRequest);
        });
      } catch (error) {
        if (!(error instanceof WorkerUnavailable) || this.#closed) throw error;
        if (!this.#inline) {
          this.#log?.warn("password workers unavailable; hashing on the main thread", { error: error.message });
        }
        this.#inline = true;
        return await this.#inlineRun(request);
      }
    } finally {
      this.#inFlight--;
    }
  }

  #inlineRun(request: Job): Promise<string | boolean> {
    return request.op === "hash"
      ? argon2Hash(request.password, request.params)
      : argon2Check(request.password, request.encoded);
  }

  /** The next live lane, starting workers as needed; null when workers are unavailable (inline fallback). */
  #lane(): Lane | null {
    this.#lanes = this.#lanes.filter((l) => !l.dead);
    if (this.#lanes.length < this.#size) {
      try {
        this.#lanes.push(new Lane(() => this.#log?.warn("password worker failed; a new one starts on demand")));
      } catch (error) {
        if (this.#lanes.length === 0) {
          this.#inline = true;
          this.#log?.warn("password workers unavailable; hashing on the main thread", { error: String(error) });
          return null;
        }
      }
    }
    return this.#lanes[this.#turn++ % this.#lanes.length]!;
  }
}
