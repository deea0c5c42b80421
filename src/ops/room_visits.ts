/**
 * Room visits per user kept in memory (`user-rooms` without the durable
 * store; spec 3 §2.2 "room history per user"). Bounded per user and in
 * users; counts only what happened since the process started.
 *
 * @module
 */

import type { DomainEvent, EventBus } from "../events/mod.ts";
import type { RoomVisit } from "./deps.ts";

type MutableVisit = { -readonly [K in keyof RoomVisit]: RoomVisit[K] };

/** Visits from `room.*` events. */
export class MemoryRoomVisits {
  readonly #users = new Map<number, MutableVisit[]>();
  readonly #stop: () => void;

  constructor(bus: EventBus, readonly maxUsers = 100_000, readonly perUser = 32) {
    this.#stop = bus.listen((e) => this.#on(e));
  }

  /** Stops listening. */
  close(): void {
    this.#stop();
  }

  #on(e: DomainEvent): void {
    if (e.kind === "room.created" && e.by !== null) this.#enter(e.by, e.room, e.uuid, false, e.time);
    else if (e.kind === "room.joined") this.#enter(e.user, e.room, e.uuid, e.monitor, e.time);
    else if (e.kind === "room.left") {
      const open = this.#users.get(e.user)?.findLast((v) => v.room_id === e.room && v.left_at === null);
      if (open) open.left_at = e.time;
    }
  }

  #enter(user: number, room: string, uuid: string, monitor: boolean, at: number): void {
    let visits = this.#users.get(user);
    if (visits) this.#users.delete(user);
    else visits = [];
    this.#users.set(user, visits);
    visits.push({ room_id: room, room_uuid: uuid, monitor, joined_at: at, left_at: null });
    if (visits.length > this.perUser) visits.splice(0, visits.length - this.perUser);
    while (this.#users.size > this.maxUsers) this.#users.delete(this.#users.keys().next().value!);
  }

  /** A user's visits, newest first. */
  history(userId: number, limit: number): RoomVisit[] {
    return [...(this.#users.get(userId) ?? [])].reverse().slice(0, Math.max(0, limit));
  }
}
