/**
 * Bookkeeping shared by the scenarios: error tallies with samples, per-command
 * round-trip histograms, and opening lean load clients (no event buffer, no
 * command log) that report violations and unexpected closes.
 *
 * @module
 */

import { ClientError, connect, type ConnectOptions, type PhiraClient } from "../client/mod.ts";
import type { Clock } from "../util/clock.ts";
import { Histogram, type LatencySummary } from "./stats.ts";

const MAX_SAMPLES = 20;

/** Counts errors by kind and keeps the first few messages, and the first of every kind. */
export class ErrorTally {
  #byKind = new Map<string, number>();
  #samples: string[] = [];
  #total = 0;

  /** Records one error. */
  add(kind: string, detail: string): void {
    this.#total++;
    const seen = this.#byKind.get(kind) ?? 0;
    this.#byKind.set(kind, seen + 1);
    // A kind that shows up late (after a flood of another) still gets its message into the report.
    const room = this.#samples.length < MAX_SAMPLES || (seen === 0 && this.#samples.length < 2 * MAX_SAMPLES);
    if (room) this.#samples.push(`${kind}: ${detail}`);
  }

  /** Records an error thrown by a client operation, classified by its code. */
  addError(what: string, error: unknown): void {
    const code = error instanceof ClientError ? error.code : "exception";
    this.add(`${what}/${code}`, error instanceof Error ? error.message : String(error));
  }

  /** Adds every error of `other`, its kinds prefixed with `prefix` (a sub-run's errors in the run's report). */
  merge(other: ErrorTally, prefix: string): void {
    for (const [kind, n] of other.#byKind) this.#byKind.set(prefix + kind, (this.#byKind.get(prefix + kind) ?? 0) + n);
    this.#total += other.#total;
    for (const sample of other.#samples) if (this.#samples.length < MAX_SAMPLES) this.#samples.push(prefix + sample);
  }

  /** Errors recorded. */
  get total(): number {
    return this.#total;
  }

  /** JSON view: total, counts by kind, first samples. */
  toJSON(): { total: number; byKind: Record<string, number>; samples: string[] } {
    return { total: this.#total, byKind: Object.fromEntries(this.#byKind), samples: [...this.#samples] };
  }
}

/** Round-trip histograms per command name. */
export class CommandTimes {
  readonly #clock: Clock;
  readonly #errors: ErrorTally;
  #times = new Map<string, Histogram>();

  constructor(clock: Clock, errors: ErrorTally) {
    this.#clock = clock;
    this.#errors = errors;
  }

  /** The histogram of one command (created on first use). */
  of(name: string): Histogram {
    let h = this.#times.get(name);
    if (!h) this.#times.set(name, h = new Histogram());
    return h;
  }

  /** Runs `op`, recording its round trip under `name` on success and an error on failure (rethrown). */
  async time<T>(name: string, op: () => Promise<T>): Promise<T> {
    const start = this.#clock.monotonic();
    try {
      const value = await op();
      this.of(name).record(this.#clock.monotonic() - start);
      return value;
    } catch (error) {
      this.#errors.addError(name, error);
      throw error;
    }
  }

  /** Summaries of every command, by name. */
  summaries(): Record<string, LatencySummary> {
    return Object.fromEntries(
      [...this.#times].sort(([a], [b]) => a.localeCompare(b)).map(([k, h]) => [
        k,
        h.summary(),
      ]),
    );
  }
}

/** Where the clients connect. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** Options of {@link openLoadClient}. */
export interface LoadClientOptions {
  readonly clock: Clock;
  readonly errors: ErrorTally;
  /** Automatic ping period, ms (0 = none). */
  readonly pingIntervalMs: number;
  readonly onRtt?: (ms: number) => void;
  readonly onEvent?: ConnectOptions["onEvent"];
  /** Gives up connecting when aborted. */
  readonly signal?: AbortSignal;
}

/**
 * Connects a client built for load: no event buffer or command log (events
 * go to `onEvent` only), violations and ping timeouts counted as errors.
 */
export async function openLoadClient(endpoint: Endpoint, o: LoadClientOptions): Promise<PhiraClient> {
  const options: ConnectOptions = {
    host: endpoint.host,
    port: endpoint.port,
    clock: o.clock,
    pingIntervalMs: o.pingIntervalMs,
    logLimit: 0,
    eventBufferLimit: 0,
    readBufferSize: 2048,
    onViolation: (v) => o.errors.add(`violation/${v.kind}`, v.detail),
  };
  if (o.onRtt) options.onRtt = o.onRtt;
  if (o.onEvent) options.onEvent = o.onEvent;
  if (o.signal) options.signal = o.signal;
  try {
    return await connect(options);
  } catch (error) {
    o.errors.add("connect", error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/** Closes clients in parallel chunks; counts those the server had closed on its own. */
export async function closeAll(clients: Iterable<PhiraClient>, errors: ErrorTally | null, chunk = 500): Promise<void> {
  let batch: Promise<void>[] = [];
  for (const c of clients) {
    if (errors && c.closeReason) errors.add(`closed-by-server/${c.closeReason.code}`, c.closeReason.message);
    batch.push(c.close());
    if (batch.length >= chunk) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
}

/** Waits `ms` on `clock`, or less when `signal` aborts. */
export function delay(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clock.clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
