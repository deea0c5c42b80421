/**
 * The eleven plugin event kinds (spec 3 §4.6; extended.md §2.3) and the
 * mapping from the server's domain events to the world's `plugin-event`
 * variant, as jco expects it (`{tag, val}` with camelCase record fields).
 * Network addresses in `user-connect` reach only plugins granted `admin`
 * (the same rule as the operations, docs/operations.md).
 *
 * @module
 */

import type { DomainEvent, DomainEventKind } from "../events/mod.ts";

/** Host-side names of the event kinds, in the variant's case order. */
export const PLUGIN_EVENT_KINDS = [
  "user_connect",
  "user_disconnect",
  "room_create",
  "room_join",
  "room_leave",
  "room_modify",
  "game_start",
  "game_end",
  "player_touches",
  "player_judges",
  "round_complete",
] as const;

/** A plugin event kind. */
export type PluginEventKind = (typeof PLUGIN_EVENT_KINDS)[number];

/** The domain event behind each plugin event kind. */
export const DOMAIN_KIND_OF: Readonly<Record<PluginEventKind, DomainEventKind>> = {
  user_connect: "user.online",
  user_disconnect: "user.offline",
  room_create: "room.created",
  room_join: "room.joined",
  room_leave: "room.left",
  room_modify: "room.updated",
  game_start: "round.started",
  game_end: "round.scored",
  player_touches: "touches",
  player_judges: "judges",
  round_complete: "round.completed",
};

/** A `plugin-event` value. */
export interface PluginEventValue {
  readonly tag: string;
  readonly val: Readonly<Record<string, unknown>>;
}

/** How {@link toPluginEvent} names users and shows addresses. */
export interface EventView {
  /** The display name of a user id, when known. */
  nameOf(userId: number): string | null;
  /** Whether the receiving plugin may see network addresses. */
  readonly addresses: boolean;
}

/** WIT `u32` fields: negative ids (the system host -1, virtual benchmark users) become 0. */
function u32(n: number | null | undefined): number {
  return typeof n === "number" && n >= 0 && n <= 0xffff_ffff ? Math.trunc(n) : 0;
}

/** The plugin event of a domain event, or null for kinds plugins do not get. */
export function toPluginEvent(event: DomainEvent, view: EventView): PluginEventValue | null {
  switch (event.kind) {
    case "user.online":
      return {
        tag: "user-connect",
        val: { userId: u32(event.user), userName: event.name, userIp: view.addresses ? event.ip ?? "" : "" },
      };
    case "user.offline":
      return { tag: "user-disconnect", val: { userId: u32(event.user), userName: event.name } };
    case "room.created":
      return { tag: "room-create", val: { userId: u32(event.by), roomId: event.room } };
    case "room.joined":
      return { tag: "room-join", val: { userId: u32(event.user), roomId: event.room, isMonitor: event.monitor } };
    case "room.left":
      return { tag: "room-leave", val: { userId: u32(event.user), roomId: event.room } };
    case "room.updated":
      return { tag: "room-modify", val: { userId: 0, roomId: event.room, data: JSON.stringify(event.changes) } };
    case "round.started":
      return { tag: "game-start", val: { userId: 0, roomId: event.room } };
    case "round.scored": {
      const r = event.record;
      return {
        tag: "game-end",
        val: {
          userId: u32(event.user),
          roomId: event.room,
          gameResult: {
            userId: u32(event.user),
            userName: view.nameOf(event.user) ?? "",
            score: u32(r.score),
            accuracy: r.accuracy,
            perfect: u32(r.perfect),
            good: u32(r.good),
            bad: u32(r.bad),
            miss: u32(r.miss),
            maxCombo: u32(r.max_combo),
            fullCombo: r.full_combo,
          },
        },
      };
    }
    case "touches":
      return {
        tag: "player-touches",
        val: {
          userId: u32(event.user),
          roomId: event.room,
          data: event.frames.flatMap((f) =>
            f.points.map(([finger, pos]) => ({ time: f.time, finger: u32(finger), x: pos.x, y: pos.y }))
          ),
        },
      };
    case "judges":
      return {
        tag: "player-judges",
        val: {
          userId: u32(event.user),
          roomId: event.room,
          data: event.judges.map((j) => ({
            time: j.time,
            lineId: u32(j.line_id),
            noteId: u32(j.note_id),
            judgement: j.judgement,
          })),
        },
      };
    case "round.completed":
      return {
        tag: "round-complete",
        val: { roomId: event.room, chartId: u32(event.chart), chartName: event.chartName },
      };
    default:
      return null;
  }
}
