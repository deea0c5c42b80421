/**
 * The room monitor (protocol.md §3.5; extended.md §5.2): one privileged
 * session, authenticated by a key derived from the shared secret, that may
 * query every room and receives `RoomEvent`s and `UserVisit`s as they happen.
 * This is what the web monitor proxy connects as.
 *
 * @module
 */

import type { DomainEvent } from "../events/mod.ts";
import { encodeServerCommand, type RoomData, type RoomEvent, type ServerCommand } from "../protocol/mod.ts";
import { roomData } from "../room/mod.ts";
import type { Session } from "../session/session.ts";
import type { CommandContext } from "./command_context.ts";
import type { ServerCore } from "./core.ts";
import { bytesEqual, roomMonitorKey } from "../net/mod.ts";

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

/**
 * The room-monitor feature of one server: who is connected, its key, and
 * what it is sent. It attaches itself from outside the core: a bus listener
 * (room events, `UserVisit` on every login) and the handler of the room
 * machine's `monitor` effect.
 */
export class RoomMonitor {
  readonly #core: ServerCore;
  /** The key room monitors must present; null when no secret is configured. */
  readonly #key: Promise<Uint8Array | null>;
  #session: Session | null = null;

  constructor(core: ServerCore) {
    this.#core = core;
    // Derived once at startup: Argon2id takes tens of milliseconds.
    const secret = core.ctx.config.service_secret_key;
    this.#key = secret ? roomMonitorKey(secret) : Promise.resolve(null);
    core.ctx.bus.listen((event) => this.#forward(event));
    core.onEffect("monitor", (effect) => this.#push({ type: "RoomEvent", event: effect.event }));
  }

  /** The connected room-monitor session, if any (protocol.md §3.5). */
  get session(): Session | null {
    return this.#session?.open ? this.#session : null;
  }

  #push(cmd: ServerCommand): void {
    const monitor = this.#session;
    if (monitor?.open) monitor.push(encodeServerCommand(cmd), false);
  }

  /** Room events as `RoomEvent`s; every player login as `UserVisit` (protocol.md §3.5). */
  #forward(event: DomainEvent): void {
    if (!this.#session?.open) return;
    if (event.kind === "user.online") return this.#push({ type: "UserVisit", user: event.user });
    const roomEvent = toRoomEvent(event);
    if (roomEvent) this.#push({ type: "RoomEvent", event: roomEvent });
  }

  /** `RoomMonitorAuthenticate{key}`: one room monitor at a time, key compared in constant time. */
  async login(cc: CommandContext<"RoomMonitorAuthenticate">): Promise<void> {
    const { session } = cc;
    const log = this.#core.ctx.log;
    // spec 3 §3.2 Connected -> Authenticating; no journal and no gate: Active once the key matches.
    if (!session.login.begin()) return cc.fail("repeated-authenticate");
    const fail = (key: "monitor-key-mismatch" | "monitor-already-connected") => {
      cc.fail(key);
      session.login.refuse(cc.replySeq, "auth-failed");
    };
    if (this.session) return fail("monitor-already-connected");
    const expected = await this.#key;
    if (!session.open) return;
    if (!expected || !bytesEqual(expected, cc.cmd.key)) {
      log.warn("room monitor presented a wrong key", { session: session.id });
      return fail("monitor-key-mismatch");
    }
    if (this.session) return fail("monitor-already-connected");
    this.#session = session;
    session.activate("room-monitor", null);
    cc.replyCommand({ type: "Authenticate", result: { ok: true, value: [{ ...ROOM_MONITOR_INFO }, null] } });
    log.info("room monitor connected", { session: session.id });
  }

  /** `QueryRoomInfo`: all public rooms, and which room each player is in. */
  query(cc: CommandContext<"QueryRoomInfo">): void {
    if (cc.session.category !== "room-monitor") return cc.fail("invalid-session-command");
    const rooms = new Map<string, RoomData>();
    const users = new Map<number, string>();
    for (const room of this.#core.rooms.values()) {
      if (room.hidden) continue;
      rooms.set(room.id, roomData(room));
      for (const p of room.players) users.set(p.id, room.id);
    }
    cc.replyCommand({ type: "RoomResponse", result: { ok: true, value: [rooms, users] } });
  }
}
