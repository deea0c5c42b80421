/**
 * What the official client believes (protocol.md §5.5), as far as the
 * server must know to never crash it: whether it holds room state, which
 * pushed commands need that state, and how a reply changes it.
 *
 * @module
 */

import type { ServerCommand } from "../protocol/mod.ts";

const ROOM_SCOPED_MESSAGES = new Set(["LockRoom", "CycleRoom", "LeaveRoom"]);

/** Commands the official client only accepts while it has room state (protocol.md §5.5). */
export function isRoomScoped(cmd: ServerCommand): boolean {
  return cmd.type === "ChangeState" || cmd.type === "ChangeHost" ||
    (cmd.type === "Message" && ROOM_SCOPED_MESSAGES.has(cmd.message.type));
}

/** Whether the client holds room state after it reads `reply` (it held `inRoom` before). */
export function inRoomAfterReply(reply: ServerCommand, inRoom: boolean): boolean {
  const result = "result" in reply ? (reply.result as { ok: boolean; value?: unknown }) : null;
  if (!result?.ok) return inRoom;
  if (reply.type === "CreateRoom" || reply.type === "JoinRoom") return true;
  if (reply.type === "LeaveRoom") return false;
  if (reply.type === "Authenticate") return (result.value as [unknown, unknown])[1] !== null;
  return inRoom;
}
