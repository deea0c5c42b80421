/**
 * Turns domain events into journal records (issue 5 "What is durable"):
 * every event except the telemetry kinds becomes one `event` record (the
 * events table, room history, rounds and round results derive from it);
 * touches and judges are batched per player and journaled in bundles
 * (`telemetry_batcher.ts`); room stays feed the playtime
 * tracker. Called synchronously by the bus, so a record is journaled before
 * the command that caused it has its reply written to the socket.
 *
 * Durability of round results (spec 3 §3.1: "results recorded durably, …
 * then `GameEnd`") — the exact guarantee: settlement queues the ranking and
 * `GameEnd` on the players' outbound queues and publishes `round.completed`
 * in the same synchronous step (`src/room/procedures.ts` `settle`, effects run in
 * order by `src/server/core.ts`), so the round's record is appended — written to
 * the operating system — before the event loop can send `GameEnd` to a
 * socket. A killed server therefore never loses a round whose `GameEnd` went
 * out. Its fsync is batched (`Journal.requestSync`, within `syncDelayMs`,
 * 2 ms): after an operating-system crash or power loss, a round whose
 * `GameEnd` left in those last milliseconds can be missing. Closing that
 * window would mean holding each room's outbound frames from `GameEnd` on
 * until the fsync (an ordering barrier in the session queues, outside this
 * layer); logins, which gate their reply, do wait for theirs (spec 3 §3.2).
 *
 * @module
 */

import type { DomainEvent } from "../../events/mod.ts";
import type { Clock } from "../../util/clock.ts";
import { PlaytimeTracker } from "./playtime.ts";
import { TelemetryBatcher } from "./telemetry_batcher.ts";
import type { RoundTelemetryCap } from "./telemetry_cap.ts";
import type { JournalEntry } from "../types.ts";

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  readonly clock: Clock;
  /** Journals one record (`body`: its JSON, when already made). */
  readonly write: (entry: JournalEntry, body?: string) => void;
  /** What one player may store per round (default budget when absent). */
  readonly telemetryCap?: RoundTelemetryCap;
}

/** The bus listener of the persistence layer. */
export class EventRecorder {
  readonly playtime = new PlaytimeTracker();
  readonly batcher: TelemetryBatcher;
  readonly #o: EventRecorderOptions;

  constructor(o: EventRecorderOptions) {
    this.#o = o;
    this.batcher = new TelemetryBatcher({
      clock: o.clock,
      emit: (entry, body) => o.write(entry, body),
      ...(o.telemetryCap ? { cap: o.telemetryCap } : {}),
    });
  }

  /** Records one event (see the module doc). */
  onEvent(event: DomainEvent): void {
    switch (event.kind) {
      case "touches":
        return this.batcher.add("touches", event.room, event.round, event.user, event.frames, event.time);
      case "judges":
        return this.batcher.add("judges", event.room, event.round, event.user, event.judges, event.time);
      case "room.created":
        // The creator is in the room from its creation (no separate room.joined).
        if (event.by !== null) this.playtime.joined(event.by, event.time);
        break;
      case "room.joined":
        if (!event.monitor) this.playtime.joined(event.user, event.time);
        break;
      case "room.left":
        if (!event.monitor) this.playtime.left(event.user, event.time);
        break;
      case "room.deleted":
        this.batcher.cap.roomGone(event.room);
        break;
      case "round.completed":
        // The round's last batches get sequences before its completion.
        this.batcher.flushRound(event.round);
        break;
    }
    const { seq: _busSeq, ...e } = event;
    this.#o.write({ t: "event", e });
  }

  /** Journals playtime accumulated up to `now` (every 60 s and at shutdown). */
  flushPlaytime(now: number): void {
    const deltas = this.playtime.take(now);
    if (deltas.length) this.#o.write({ t: "playtime", at: now, deltas });
  }
}
