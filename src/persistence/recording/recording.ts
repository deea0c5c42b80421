/**
 * Everything persistence records as it happens, in one part: domain events
 * and telemetry from the bus (`recorder.ts`, with the per-round telemetry
 * cap), debounced room snapshots, and what of the authentication cache is
 * saved. Records go to the write functions it is given.
 *
 * @module
 */

import type { DomainEvent, EventBus } from "../../events/mod.ts";
import type { CachedIdentity } from "../../server/auth_cache.ts";
import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import type { AuthCacheEntry, JournalEntry } from "../types.ts";
import { AuthCacheSync } from "./auth_sync.ts";
import { EventRecorder } from "./recorder.ts";
import { SnapshotDebouncer } from "./snapshots.ts";
import { RoundTelemetryCap } from "./telemetry_cap.ts";
import { TelemetrySegments, type TelemetrySegmentsOptions } from "../telemetry/segment_store.ts";
import { WorkerIo } from "../../replay/mod.ts";

/** Options of {@link Recording}. */
export interface RecordingOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** Journals a record without throwing (failures are counted by the writer). */
  readonly write: (entry: JournalEntry, body?: string) => void;
  /** What one player may store per round, in wire bytes. */
  readonly roundTelemetryMaxBytes: number;
  /** The folder of telemetry files (`<data_dir>/record`). */
  readonly telemetryDir: string;
  /** Test seams of the telemetry store (flush period, segment size, memory bound). */
  readonly telemetry?: Partial<Pick<TelemetrySegmentsOptions, "flushMs" | "segmentBytes" | "maxPendingBytes" | "io">>;
}

/** The recording parts of persistence; see the module doc. */
export class Recording {
  readonly recorder: EventRecorder;
  readonly snapshots: SnapshotDebouncer;
  readonly #authSync = new AuthCacheSync();
  readonly #clock: Clock;
  /** The telemetry files' own thread (issue 15: their I/O off the event loop), when this part made it. */
  readonly #io: WorkerIo | null;

  constructor(o: RecordingOptions) {
    this.#clock = o.clock;
    const cap = new RoundTelemetryCap(
      o.roundTelemetryMaxBytes,
      (c) =>
        o.log.warn("telemetry cap reached: this player's further touches and judges in this round are dropped", {
          user: c.user,
          room: c.room,
          round: c.round ?? undefined,
          max_bytes: c.maxBytes,
        }),
    );
    this.#io = o.telemetry?.io ? null : new WorkerIo();
    const telemetry = new TelemetrySegments({
      ...o.telemetry,
      io: o.telemetry?.io ?? this.#io!,
      clock: o.clock,
      log: o.log,
      dir: o.telemetryDir,
      cap,
      emit: (entry) => o.write(entry),
    });
    this.recorder = new EventRecorder({ clock: o.clock, write: o.write, telemetry });
    this.snapshots = new SnapshotDebouncer({
      clock: o.clock,
      emit: (room, payload) => o.write({ t: "snapshot", room, payload, at: o.clock.now() }),
    });
  }

  /**
   * Records the events of `bus` from now on, telemetry included (issue 5: per-player round data is durable);
   * returns the unsubscribe. `failed` hears of an event that could not be recorded.
   */
  listen(bus: EventBus, failed: (error: unknown, event: DomainEvent) => void): () => void {
    return bus.listen((event) => {
      try {
        this.recorder.onEvent(event);
      } catch (error) {
        failed(error, event);
      }
    }, { telemetry: true });
  }

  /** Journals what is held for batching: touch and judge segments (once written), debounced snapshots. */
  flushHeld(): void {
    this.recorder.telemetry.flushAll();
    this.snapshots.flushAll();
  }

  /** Resolves once every telemetry segment written so far is journaled. */
  telemetryIdle(): Promise<void> {
    return this.recorder.telemetry.idle();
  }

  /** Writes and closes every telemetry file and journals their last segments (shutdown). */
  async closeTelemetry(): Promise<void> {
    await this.recorder.telemetry.close();
    this.#io?.close();
  }

  /** Journals the playtime accumulated so far. */
  flushPlaytime(): void {
    this.recorder.flushPlaytime(this.#clock.now());
  }

  /** Playtime of `user` not journaled yet, in milliseconds. */
  pendingPlaytime(user: number): number {
    return this.recorder.playtime.pendingFor(user, this.#clock.now());
  }

  /** Marks the cache restored at startup as saved. */
  authCacheLoaded(entries: readonly (readonly [string, CachedIdentity])[]): void {
    this.#authSync.markSaved(entries);
  }

  /** The record saving the cache's changes since the last save, or null. */
  authCacheChanges(entries: readonly (readonly [string, CachedIdentity])[]): AuthCacheEntry | null {
    return this.#authSync.diff(entries);
  }

  /** Stops the telemetry store's timer without waiting for its files (persistence closed). */
  stop(): void {
    void this.recorder.telemetry.close();
    this.#io?.close();
  }
}
