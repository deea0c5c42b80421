/**
 * Touches and Judges relay (protocol.md §5.4): ignored outside a room or in a
 * room that is not live; otherwise sent to the room's monitors only, tagged
 * with the player id. The relayed frame reuses the client's payload bytes:
 * the server variant has the same tag and adds the player id after it.
 *
 * @module
 */

import { type ClientCommandOf, MAX_PREFIX_BYTES, Writer } from "../protocol/mod.ts";
import type { CommandContext } from "./command_context.ts";
import type { ServerCore } from "./core.ts";

/** Builds `ServerCommand::Touches|Judges { player, … }` from a client payload. */
export function relayFrame(raw: Uint8Array, player: number): Uint8Array {
  const w = new Writer(raw.length + 4 + MAX_PREFIX_BYTES, MAX_PREFIX_BYTES);
  w.u8(raw[0]!);
  w.i32(player);
  w.raw(raw.subarray(1));
  return w.frame();
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
  const scope = { room: room.id, uuid: room.uuid, hidden: room.hidden, user: user.id, round };
  const bus = core.ctx.bus;
  const cmd = cc.cmd as ClientCommandOf<"Touches" | "Judges">;
  if (cmd.type === "Touches") {
    if (bus.wants("touches")) bus.publish({ kind: "touches", ...scope, frames: cmd.frames, raw: cc.inbound.raw });
  } else if (bus.wants("judges")) bus.publish({ kind: "judges", ...scope, judges: cmd.judges, raw: cc.inbound.raw });
}
