/**
 * The room monitor (protocol.md §3.5; extended.md §5.2): one privileged
 * session, authenticated by a key derived from the shared secret, that may
 * query every room and receives `RoomEvent`s and `UserVisit`s as they happen.
 * This is what the web monitor proxy connects as.
 *
 * @module
 */

import type { DomainEvent } from "../events/mod.ts";
import { encodeServerCommand, type RoomData, type RoomEvent } from "../protocol/mod.ts";
import { roomData } from "../room/mod.ts";
import type { CommandContext } from "./command_context.ts";
import type { ServerCore } from "./core.ts";
import { bytesEqual } from "./monitor_key.ts";

/** Identity the room monitor is answered with. */
export const ROOM_MONITOR_INFO = { id: -1, name: "$server_room_monitor", monitor: false } as const;

/** The `RoomEvent` for a domain event, or null when monitors do not see it (hidden rooms, monitors joining). */
export function toRoomEvent(event: DomainEvent): RoomEvent | null {
  if ("hidden" in event && event.hidden) return null;
  switch (event.kind) {
    case "room.created":
      return { type: "CreateRoom", room: event.room, data: event.data };
    case "room.updated": {
      const c = event.changes;
      if (c.host === null && c.lock === null && c.cycle === null && c.chart === null && c.state === null) return null;
      return { type: "UpdateRoom", room: event.room, data: c };
    }
    case "room.joined":
      return event.monitor ? null : { type: "JoinRoom", room: event.room, user: event.user };
    case "room.left":
      return event.monitor ? null : { type: "LeaveRoom", room: event.room, user: event.user };
    case "round.completed":
      return { type: "NewRound", room: event.room, round: event.data };
    default:
      return null;
  }
}

/** Forwards domain events to the connected room monitor, if any. */
export function forwardToRoomMonitor(core: ServerCore, event: DomainEvent): void {
  const monitor = core.roomMonitor;
  if (!monitor?.open) return;
  const roomEvent = toRoomEvent(event);
  if (roomEvent) monitor.push(encodeServerCommand({ type: "RoomEvent", event: roomEvent }), false);
}

/** Pushes one `RoomEvent` to the connected room monitor, if any. */
export function pushToRoomMonitor(core: ServerCore, event: RoomEvent): void {
  const monitor = core.roomMonitor;
  if (monitor?.open) monitor.push(encodeServerCommand({ type: "RoomEvent", event }), false);
}

/** Tells the room monitor that a user logged in. */
export function reportVisit(core: ServerCore, userId: number): void {
  const monitor = core.roomMonitor;
  if (monitor?.open) monitor.push(encodeServerCommand({ type: "UserVisit", user: userId }), false);
}

/** `RoomMonitorAuthenticate{key}`: one room monitor at a time, key compared in constant time. */
export async function roomMonitorLogin(core: ServerCore, cc: CommandContext<"RoomMonitorAuthenticate">): Promise<void> {
  const { session } = cc;
  if (session.state !== "connected") return cc.fail("repeated-authenticate");
  const fail = (key: "monitor-key-mismatch" | "monitor-already-connected") => {
    session.state = "failed";
    cc.fail(key);
    void session.closeAfterFlush(cc.replySeq, "auth-failed");
  };
  if (core.roomMonitor?.open) return fail("monitor-already-connected");
  session.state = "authenticating";
  const expected = await core.monitorKey;
  if (!session.open) return;
  if (!expected || !bytesEqual(expected, cc.cmd.key)) {
    core.ctx.log.warn("room monitor presented a wrong key", { session: session.id });
    return fail("monitor-key-mismatch");
  }
  if (core.roomMonitor?.open) return fail("monitor-already-connected");
  core.roomMonitor = session;
  session.state = "active";
  session.activate("room-monitor", null);
  cc.replyCommand({ type: "Authenticate", result: { ok: true, value: [{ ...ROOM_MONITOR_INFO }, null] } });
  core.ctx.log.info("room monitor connected", { session: session.id });
}

/** `QueryRoomInfo`: all public rooms, and which room each player is in. */
export function queryRoomInfo(core: ServerCore, cc: CommandContext<"QueryRoomInfo">): void {
  if (cc.session.category !== "room-monitor") return cc.fail("invalid-session-command");
  const rooms = new Map<string, RoomData>();
  const users = new Map<number, string>();
  for (const room of core.rooms.values()) {
    if (room.hidden) continue;
    rooms.set(room.id, roomData(room));
    for (const p of room.players) users.set(p.id, room.id);
  }
  cc.replyCommand({ type: "RoomResponse", result: { ok: true, value: [rooms, users] } });
}
