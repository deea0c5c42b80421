/**
 * {@link RoomSource} over the game server's in-process event bus, for the
 * backend mounted inside `deno task start` (`accounts.enabled`). The
 * snapshot is read in the same turn as the subscription is made, so no
 * event falls between them. The subscription is bounded; when the backend
 * falls behind and events are dropped, it subscribes again with a fresh
 * snapshot instead of guessing. Unlike the monitor protocol, the bus
 * reports room deletion, the players of a round, and each score as it is
 * reported.
 *
 * @module
 */

import type { DomainEvent, DomainEventKind, EventBus, Subscription } from "../events/mod.ts";
import { partialRoomJson, recordJson, roomDataJson, roundJson } from "../http/json.ts";
import type { RoomData } from "../protocol/mod.ts";
import type { Logger } from "../util/log.ts";
import type { RoomSnapshotEntry, RoomSource, RoomSourceEvent } from "./room_source.ts";

/** One public room as the game server holds it now. */
export interface LiveRoom {
  readonly name: string;
  readonly data: RoomData;
  readonly playing: readonly number[];
}

/** Options of {@link BusRoomSource}. */
export interface BusSourceOptions {
  readonly bus: EventBus;
  /** The public (not hidden) rooms now. */
  readonly rooms: () => Iterable<LiveRoom>;
  readonly log: Logger;
  /** Events buffered before the oldest are dropped (default 4096). */
  readonly capacity?: number;
}

const KINDS: readonly DomainEventKind[] = [
  "room.created",
  "room.updated",
  "room.deleted",
  "room.joined",
  "room.left",
  "round.started",
  "round.scored",
  "round.completed",
  "user.online",
];

/** Hidden rooms and monitors never reach the backend (as for every public stream). */
function visible(event: DomainEvent): boolean {
  if ("hidden" in event && event.hidden) return false;
  if (event.kind === "room.joined" || event.kind === "room.left") return !event.monitor;
  return true;
}

/** The source event of a domain event, or null. */
export function sourceEvent(event: DomainEvent): RoomSourceEvent | null {
  switch (event.kind) {
    case "room.created":
      return {
        type: "created",
        room: event.room,
        creator: event.by ?? event.data.host,
        data: roomDataJson(event.data),
      };
    case "room.updated":
      return { type: "updated", room: event.room, changes: partialRoomJson(event.changes) };
    case "room.deleted":
      return { type: "deleted", room: event.room };
    case "room.joined":
      return { type: "joined", room: event.room, user: event.user };
    case "room.left":
      return { type: "left", room: event.room, user: event.user };
    case "round.started":
      return { type: "round_started", room: event.room, players: [...event.players] };
    case "round.scored":
      return { type: "scored", room: event.room, record: recordJson(event.record) };
    case "round.completed":
      return { type: "round_completed", room: event.room, round: roundJson(event.data) };
    case "user.online":
      return event.user > 0 ? { type: "visited", user: event.user } : null;
    default:
      return null;
  }
}

/** Room state straight from the game server in the same process. */
export class BusRoomSource implements RoomSource {
  readonly description = "in-process";
  readonly #o: BusSourceOptions;
  #sub: Subscription | null = null;
  #closed = false;
  #pump: Promise<void> = Promise.resolve();

  constructor(o: BusSourceOptions) {
    this.#o = o;
  }

  get connected(): boolean {
    return !this.#closed && this.#sub !== null;
  }

  start(sink: (event: RoomSourceEvent) => void): void {
    this.#subscribe(sink);
    this.#pump = this.#loop(sink);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sub?.close();
    await this.#pump;
    this.#sub = null;
  }

  /** Subscribes and hands on the snapshot in the same turn. */
  #subscribe(sink: (event: RoomSourceEvent) => void): Subscription {
    this.#sub?.close();
    const sub = this.#o.bus.subscribe({ kinds: KINDS, capacity: this.#o.capacity ?? 4096, filter: visible });
    this.#sub = sub;
    const rooms = new Map<string, RoomSnapshotEntry>();
    for (const r of this.#o.rooms()) rooms.set(r.name, { data: roomDataJson(r.data), playing: [...r.playing] });
    sink({ type: "snapshot", rooms });
    return sub;
  }

  async #loop(sink: (event: RoomSourceEvent) => void): Promise<void> {
    let sub = this.#sub!;
    for (;;) {
      const item = await sub.next();
      if (item === null || this.#closed) return;
      if (item.type === "lagged") {
        this.#o.log.warn("account backend fell behind the game server's events; resynchronizing", {
          skipped: item.skipped,
        });
        sub = this.#subscribe(sink);
        continue;
      }
      const event = sourceEvent(item.event);
      if (event) sink(event);
    }
  }
}
