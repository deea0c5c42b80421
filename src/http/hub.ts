/**
 * The broadcast hub's vocabulary: which domain event becomes which named
 * stream event (spec 1 §6) and with which payload (spec 1 §2.3). Every
 * stream -- `/api/events`, `/rooms/listen`, `/api/rooms/listen`, `/api/ws`
 * and plugin streams -- starts from {@link hubEvent}; each then keeps the
 * names it carries.
 *
 * When each fires (see `docs/http.md`):
 * - `create_room`: a room was created (`data` = full RoomData; the creator is in `users`, no `join_room` for them).
 * - `update_room`: host, lock, cycle, chart or state changed (`data` = only the changed fields).
 * - `join_room` / `leave_room`: a player (never a monitor) joined or left, for any reason.
 * - `delete_room`: the room is gone (extension of profile S; it follows the last `leave_room`).
 * - `new_round`: a round was settled (`round` = RoundData of the finished round).
 * - `player_score` (profile R): a player's record was reported (`Played`), as the room saw it.
 * - `start_round` (profile R): the round began playing -- when every member was ready, not at
 *   `RequestStart` (the admin-panel variant) and not at settlement (PMP >= 2026-08-02; extended.md §10 item 4).
 *
 * @module
 */

import type { DomainEvent, DomainEventKind } from "../events/mod.ts";
import { partialRoomJson, recordJson, roomDataJson, roundJson } from "./json.ts";

/** Names of hub events. */
export const HUB_EVENT_NAMES = [
  "create_room",
  "update_room",
  "join_room",
  "leave_room",
  "delete_room",
  "new_round",
  "player_score",
  "start_round",
] as const;

/** A hub event name. */
export type HubEventName = (typeof HUB_EVENT_NAMES)[number];

/** A named event with its JSON payload. */
export interface HubEvent {
  readonly type: HubEventName;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Events of `/api/events` and `/api/ws`: every hub event. */
export const ALL_EVENTS: ReadonlySet<HubEventName> = new Set(HUB_EVENT_NAMES);

/** Events of profile S `/rooms/listen`: the room lifecycle (spec 1 §4.3 rule 2 names, plus `delete_room`). */
export const ROOM_EVENTS: ReadonlySet<HubEventName> = new Set([
  "create_room",
  "update_room",
  "join_room",
  "leave_room",
  "delete_room",
  "new_round",
]);

/** Events of profile R `/api/rooms/listen` (spec 1 §6; spec 2 §4.2). */
export const BASIC_EVENTS: ReadonlySet<HubEventName> = new Set([
  "create_room",
  "update_room",
  "join_room",
  "leave_room",
  "player_score",
  "start_round",
]);

/** The domain event kind behind each hub event (one to one). */
export const KIND_OF_EVENT: Readonly<Record<HubEventName, DomainEventKind>> = {
  create_room: "room.created",
  update_room: "room.updated",
  join_room: "room.joined",
  leave_room: "room.left",
  delete_room: "room.deleted",
  new_round: "round.completed",
  player_score: "round.scored",
  start_round: "round.started",
};

/** The bus kinds a stream carrying `names` subscribes to. */
export function kindsFor(names: Iterable<HubEventName>): DomainEventKind[] {
  return [...new Set([...names].map((n) => KIND_OF_EVENT[n]))];
}

/** True when the event may reach public streams: hidden rooms never do, monitors' joins and leaves never do. */
export function isPublic(event: DomainEvent): boolean {
  if ("hidden" in event && event.hidden) return false;
  if (event.kind === "room.joined" || event.kind === "room.left") return !event.monitor;
  return true;
}

/** The hub event of a domain event, or null when it has none or is not public. */
export function hubEvent(event: DomainEvent): HubEvent | null {
  if (!isPublic(event)) return null;
  switch (event.kind) {
    case "room.created":
      return { type: "create_room", data: { room: event.room, data: roomDataJson(event.data) } };
    case "room.updated":
      return { type: "update_room", data: { room: event.room, data: partialRoomJson(event.changes) } };
    case "room.joined":
      return { type: "join_room", data: { room: event.room, user: event.user } };
    case "room.left":
      return { type: "leave_room", data: { room: event.room, user: event.user } };
    case "room.deleted":
      return { type: "delete_room", data: { room: event.room } };
    case "round.completed":
      return { type: "new_round", data: { room: event.room, round: roundJson(event.data) } };
    case "round.scored":
      return { type: "player_score", data: { room: event.room, record: recordJson(event.record) } };
    case "round.started":
      return { type: "start_round", data: { room: event.room } };
    default:
      return null;
  }
}

/** A hub event with its payload serialized once. */
export interface RenderedEvent {
  readonly type: HubEventName;
  readonly data: Readonly<Record<string, unknown>>;
  /** `JSON.stringify(data)`. */
  readonly json: string;
}

/**
 * Maps and serializes each event once, however many streams carry it
 * (an instance per HTTP service; entries go with their events).
 */
export class HubRenderer {
  readonly #cache = new WeakMap<DomainEvent, RenderedEvent | null>();

  /** The rendered hub event of `event`, or null. */
  render(event: DomainEvent): RenderedEvent | null {
    let out = this.#cache.get(event);
    if (out === undefined) {
      const hub = hubEvent(event);
      out = hub ? { ...hub, json: JSON.stringify(hub.data) } : null;
      this.#cache.set(event, out);
    }
    return out;
  }
}

/**
 * Canonical form of an event-type name for plugin filters: lower case with
 * punctuation removed, so `create_room`, `CreateRoom` and `create-room`
 * match (extended.md §2.18).
 */
export function canonicalEventName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}
