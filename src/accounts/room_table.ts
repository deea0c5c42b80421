/**
 * The game server's rooms as the account backend serves them (spec 1
 * profile R, §2.1 and §4.2): kept up to date from a {@link RoomSource} and
 * turned into the profile R stream events (`create_room`, `update_room`,
 * `join_room`, `leave_room`, `player_score`, `start_round`; spec 1 §6).
 * Each event is rendered once and handed to every stream by the caller.
 * The room list's JSON is rebuilt only after a change.
 *
 * @module
 */

import type { RoomDataJson, RoomSnapshotEntry, RoomSourceEvent } from "./room_source.ts";

/** Profile R element: `{name, data}` with `playing_users`. */
export interface RoomInfoJson {
  readonly name: string;
  readonly data: RoomDataJson & { readonly playing_users: readonly number[] };
}

/** A profile R stream event. */
export interface RoomStreamEvent {
  readonly event: "create_room" | "update_room" | "join_room" | "leave_room" | "player_score" | "start_round";
  readonly data: Readonly<Record<string, unknown>>;
}

interface Entry {
  data: RoomDataJson;
  playing: number[];
}

/** Options of {@link RoomTable}. */
export interface RoomTableOptions {
  /** Finished rounds kept per room, oldest dropped first (default 50). */
  readonly maxRounds?: number;
  /** Called with every stream event, in order. */
  readonly onEvent?: (event: RoomStreamEvent) => void;
}

const SCALARS = ["host", "lock", "cycle", "chart", "state"] as const;

function copy(data: RoomDataJson): RoomDataJson {
  return { ...data, users: [...data.users], rounds: [...data.rounds] };
}

/** Rooms and who is in which. */
export class RoomTable {
  readonly #rooms = new Map<string, Entry>();
  readonly #userRoom = new Map<number, string>();
  readonly #maxRounds: number;
  readonly #emit: (event: RoomStreamEvent) => void;
  #listJson: string | null = null;

  constructor(o: RoomTableOptions = {}) {
    this.#maxRounds = o.maxRounds ?? 50;
    this.#emit = o.onEvent ?? (() => {});
  }

  /** Rooms known. */
  get size(): number {
    return this.#rooms.size;
  }

  /** The profile R element of room `name`, or null. */
  get(name: string): RoomInfoJson | null {
    const e = this.#rooms.get(name);
    return e ? { name, data: { ...e.data, playing_users: [...e.playing] } } : null;
  }

  /** The room user `id` is in, or null. */
  roomOf(id: number): RoomInfoJson | null {
    const name = this.#userRoom.get(id);
    return name === undefined ? null : this.get(name);
  }

  /** Whether a room named `name` exists. */
  has(name: string): boolean {
    return this.#rooms.has(name);
  }

  /** The profile R list as JSON text (cached until the next change). */
  listJson(): string {
    this.#listJson ??= JSON.stringify([...this.#rooms.keys()].map((name) => this.get(name)));
    return this.#listJson;
  }

  /** Applies one source event. */
  apply(e: RoomSourceEvent): void {
    this.#listJson = null;
    switch (e.type) {
      case "snapshot":
        return this.#replace(e.rooms);
      case "disconnected":
        this.#rooms.clear();
        this.#userRoom.clear();
        return;
      case "created": {
        this.#rooms.set(e.room, { data: copy(e.data), playing: [] });
        for (const u of e.data.users) this.#userRoom.set(u, e.room);
        return this.#emit({ event: "create_room", data: { room: e.room, data: e.data } });
      }
      case "deleted": {
        const entry = this.#rooms.get(e.room);
        if (!entry) return;
        for (const u of entry.data.users) if (this.#userRoom.get(u) === e.room) this.#userRoom.delete(u);
        this.#rooms.delete(e.room);
        return;
      }
      case "visited":
        return;
    }
    const entry = this.#rooms.get(e.room);
    if (!entry) return; // events of a room the snapshot did not have (created and gone meanwhile)
    switch (e.type) {
      case "updated":
        Object.assign(entry.data, e.changes);
        if (e.changes.state === "SELECTING_CHART") entry.playing = [];
        return this.#emit({ event: "update_room", data: { room: e.room, data: e.changes } });
      case "joined":
        if (!entry.data.users.includes(e.user)) entry.data.users.push(e.user);
        this.#userRoom.set(e.user, e.room);
        return this.#emit({ event: "join_room", data: { room: e.room, user: e.user } });
      case "left":
        entry.data.users = entry.data.users.filter((u) => u !== e.user);
        entry.playing = entry.playing.filter((u) => u !== e.user);
        if (this.#userRoom.get(e.user) === e.room) this.#userRoom.delete(e.user);
        return this.#emit({ event: "leave_room", data: { room: e.room, user: e.user } });
      case "round_started":
        entry.playing = [...(e.players ?? entry.data.users)];
        return this.#emit({ event: "start_round", data: { room: e.room } });
      case "scored":
        entry.playing = entry.playing.filter((u) => u !== e.record.player);
        return this.#emit({ event: "player_score", data: { room: e.room, record: e.record } });
      case "round_completed":
        entry.data.rounds = [...entry.data.rounds, e.round].slice(-this.#maxRounds);
        entry.playing = [];
        return;
    }
  }

  /** Replaces everything; new rooms are announced, changed fields of kept rooms are reported. */
  #replace(rooms: ReadonlyMap<string, RoomSnapshotEntry>): void {
    const old = new Map(this.#rooms);
    this.#rooms.clear();
    this.#userRoom.clear();
    for (const [name, r] of rooms) {
      const data = copy(r.data);
      data.rounds = data.rounds.slice(-this.#maxRounds);
      this.#rooms.set(name, { data, playing: [...r.playing] });
      for (const u of data.users) this.#userRoom.set(u, name);
      const before = old.get(name);
      if (!before) {
        this.#emit({ event: "create_room", data: { room: name, data } });
        continue;
      }
      const changes: Record<string, unknown> = {};
      for (const k of SCALARS) if (before.data[k] !== data[k]) changes[k] = data[k];
      if (Object.keys(changes).length) this.#emit({ event: "update_room", data: { room: name, data: changes } });
    }
  }
}
