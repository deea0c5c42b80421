/**
 * Turns domain events into journal records (issue 5 "What is durable"):
 * every event except the telemetry kinds becomes one `event` record (the
 * events table, room history, rounds and round results derive from it);
 * touches and judges are stored as the wire bytes they came as, per round
 * and player, in segments indexed by journal records
 * (`../telemetry/segment_store.ts`); room stays feed the playtime tracker. Called synchronously by the bus, so a record is journaled before
 * the command that caused it has its reply written to the socket.
 *
 * Durability of round results (spec 3 §3.1: "results recorded durably, ...
 * then `GameEnd`") -- the exact guarantee: settlement queues the ranking and
 * `GameEnd` on the players' outbound queues and publishes `round.completed`
 * in the same synchronous step (`src/room/procedures.ts` `settle`, effects run in
 * order by `src/server/core.ts`), so the round's record is appended -- written to
 * the operating system -- before the event loop can send `GameEnd` to a
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
import { ClientCommand, encodeValue } from "../../protocol/mod.ts";
import { PlaytimeTracker } from "./playtime.ts";
import type { TelemetrySegments } from "../telemetry/segment_store.ts";
import type { JournalEntry } from "../types.ts";

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  readonly clock: Clock;
  /** Journals one record (`body`: its JSON, when already made). */
  readonly write: (entry: JournalEntry, body?: string) => void;
  /** Where touches and judges go. */
  readonly telemetry: TelemetrySegments;
}

/** The bus listener of the persistence layer. */
export class EventRecorder {
  readonly playtime = new PlaytimeTracker();
  readonly telemetry: TelemetrySegments;
  readonly #o: EventRecorderOptions;

  constructor(o: EventRecorderOptions) {
    this.#o = o;
    this.telemetry = o.telemetry;
  }

  /** Records one event (see the module doc). */
  onEvent(event: DomainEvent): void {
    switch (event.kind) {
      case "touches": {
        // The payload as received (server/telemetry.ts); an event made elsewhere is encoded once.
        const raw = event.raw ?? encodeValue(ClientCommand, { type: "Touches", frames: [...event.frames] });
        const n = event.count ?? event.frames.length;
        return this.telemetry.add("touches", event.room, event.uuid, event.round, event.user, raw, n, event.time);
      }
      case "judges": {
        const raw = event.raw ?? encodeValue(ClientCommand, { type: "Judges", judges: [...event.judges] });
        const n = event.count ?? event.judges.length;
        return this.telemetry.add("judges", event.room, event.uuid, event.round, event.user, raw, n, event.time);
      }
      case "round.started":
        this.telemetry.roundStarted(event.round, event.chart, event.time);
        break;
      case "round.scored":
        if (event.round) this.telemetry.scored(event.round, event.user, event.record.id);
        break;
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
        this.telemetry.roomGone(event.room, event.uuid);
        break;
      case "round.completed":
        // The round's files are written and closed; their last segments are indexed once fsync'd.
        this.telemetry.flushRound(event.round);
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
