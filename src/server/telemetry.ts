/**
 * Touches and Judges relay (protocol.md §5.4): ignored outside a room or in a
 * room that is not live; otherwise sent to the room's monitors only, tagged
 * with the player id. The relayed frame reuses the client's payload bytes:
 * the server variant has the same tag and adds the player id after it.
 *
 * @module
 */

import { type ClientCommandOf, type JudgeEvent, telemetryCount, type TouchFrame } from "../protocol/mod.ts";
import type { CommandContext } from "./command_context.ts";
import type { ServerCore } from "./core.ts";

/**
 * Builds `ServerCommand::Touches|Judges { player, ... }` from a client payload:
 * one exact-size array per relayed message (the hottest allocation of the
 * relay), the ULEB128 length prefix, the tag, the player (i32 LE), the rest.
 */
export function relayFrame(raw: Uint8Array, player: number): Uint8Array {
  const length = raw.length + 4;
  let prefix = 1;
  for (let n = length; n >= 0x80; n = Math.floor(n / 0x80)) prefix++;
  const frame = new Uint8Array(prefix + length);
  let at = 0;
  let n = length;
  while (n >= 0x80) {
    frame[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  frame[at++] = n;
  frame[at] = raw[0]!;
  frame[at + 1] = player & 0xff;
  frame[at + 2] = (player >>> 8) & 0xff;
  frame[at + 3] = (player >>> 16) & 0xff;
  frame[at + 4] = (player >>> 24) & 0xff;
  frame.set(raw.subarray(1), at + 5);
  return frame;
}

/** Relays a Touches or Judges command and publishes it when someone listens. */
export function relayTelemetry<T extends "Touches" | "Judges">(core: ServerCore, cc: CommandContext<T>): void {
  const user = cc.user;
  if (!user) return;
  const room = core.roomOf(user);
  if (!room || !room.live) return;
  if (room.monitors.length) {
    const frame = relayFrame(cc.inbound.raw, user.id);
    // Only the bound connection, never `user.pending` (spec 3 §3.2, §8): telemetry is high-rate and loss-tolerant,
    // and a burst held in a pending login's gate (256 frames, 1 MiB) would fail that login. Until takeover the old
    // connection, still bound, receives it; a monitor with none misses the frames of its login's few milliseconds.
    for (const m of room.monitors) core.users.get(m.id)?.session?.push(frame, false);
  }
  const round = room.phase.kind === "play" ? room.phase.round : null;
  const bus = core.ctx.bus;
  const cmd = cc.cmd as ClientCommandOf<"Touches" | "Judges">;
  // One object of a fixed shape per message, not copied by the bus; its items are decoded only if a listener
  // reads them (a plugin, a feed): the recorder stores `raw` and counts with `count`.
  if (cmd.type === "Touches") {
    if (bus.wants("touches")) bus.publish(new TouchesEvent(room, user.id, round, cc.inbound.raw, cmd));
  } else if (bus.wants("judges")) {
    bus.publish(new JudgesEvent(room, user.id, round, cc.inbound.raw, cmd));
  }
}

/** What a telemetry event keeps of its room. */
interface RoomRef {
  readonly id: string;
  readonly uuid: string;
  readonly hidden: boolean;
}

/** What the bus events of relayed telemetry share (`events/types.ts` "touches", "judges"). */
abstract class RelayedTelemetry<C extends ClientCommandOf<"Touches" | "Judges">> {
  readonly room: string;
  readonly uuid: string;
  readonly hidden: boolean;
  readonly user: number;
  readonly round: string | null;
  readonly raw: Uint8Array;
  /** Frames or judge events in the message, known without decoding them. */
  readonly count: number;
  /** Stamped by the bus (declared here so that every event has one shape). */
  seq = 0;
  time = 0;
  /** The command (not an own property: listeners that list an event's fields do not see it). */
  readonly #cmd: C;

  constructor(room: RoomRef, user: number, round: string | null, raw: Uint8Array, cmd: C) {
    this.room = room.id;
    this.uuid = room.uuid;
    this.hidden = room.hidden;
    this.user = user;
    this.round = round;
    this.raw = raw;
    this.count = telemetryCount(cmd);
    this.#cmd = cmd;
  }

  /** The command: its items are decoded (by it, once) only when a listener reads them. */
  protected get command(): C {
    return this.#cmd;
  }
}

/** The bus event of a relayed Touches. */
class TouchesEvent extends RelayedTelemetry<ClientCommandOf<"Touches">> {
  readonly kind = "touches" as const;
  /** The touch frames. */
  get frames(): TouchFrame[] {
    return this.command.frames;
  }
}

/** The bus event of a relayed Judges. */
class JudgesEvent extends RelayedTelemetry<ClientCommandOf<"Judges">> {
  readonly kind = "judges" as const;
  /** The judge events. */
  get judges(): JudgeEvent[] {
    return this.command.judges;
  }
}
