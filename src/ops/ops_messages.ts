/**
 * Messaging operations (spec 3 §4.5 `broadcast.*`; WIT `game-messaging`
 * `send-to-user`, `send-to-room`, `send-to-all`): system chat lines, shown
 * with the localized `[Broadcast]` prefix.
 *
 * @module
 */

import { type ServerOp, serverOp } from "./server_op.ts";
import { OpsError, roomNotFound } from "./errors.ts";
import { p } from "./params.ts";

/** The broadcast operations. */
export function messageOps(): ServerOp[] {
  return [
    serverOp({
      name: "broadcast.all",
      summary: "system message to every online user",
      permission: "send",
      mutates: true,
      params: { message: p.message() },
      run: (a, { context: s }) => ({ sent: s.admin.broadcastAll(a.message) }),
    }),
    serverOp({
      name: "broadcast.room",
      summary: "system message to a room's members",
      permission: "send",
      mutates: true,
      params: { room_id: p.roomId(), message: p.message() },
      run: (a, { context: s }) => {
        const sent = s.admin.broadcastRoom(a.room_id, a.message);
        if (sent === null) roomNotFound(a.room_id);
        return { room_id: a.room_id, sent };
      },
    }),
    serverOp({
      name: "broadcast.user",
      summary: "system message to one online user",
      permission: "send",
      mutates: true,
      params: { user_id: p.userId(), message: p.message() },
      run: (a, { context: s }) => {
        if (!s.admin.broadcastUser(a.user_id, a.message)) {
          throw new OpsError("USER_NOT_FOUND", `user ${a.user_id} is not online`);
        }
        return { user_id: a.user_id, sent: 1 };
      },
    }),
  ];
}
