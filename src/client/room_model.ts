/**
 * The official client's local room model (TeamFlos `phira-mp-client`,
 * protocol.md §5.5 "Client expectations"), including the points where the
 * official client would panic. Those are returned as problems so the client
 * can record them as violations instead of dying.
 *
 * @module
 */

import type { ClientCommand, ClientRoomState, ServerCommand, UserInfo } from "../protocol/mod.ts";

/** Why the official client would have crashed on a command. */
export type ViolationKind =
  /** A reply-type command (protocol.md §5.5: tags 1, 2, 8, 9, 11-19, and fork tag 20) with no request outstanding. */
  | "unsolicited-reply"
  /** A room-scoped command (ChangeState, ChangeHost, Message::LockRoom/CycleRoom/LeaveRoom, or an Ok reply that updates the room) while the client has no room state. */
  | "no-room"
  /** `CreateRoom(Ok)` before any successful authentication (the official client unwraps its own user info). */
  | "not-authenticated";

/** What is wrong with a received command, as found by {@link RoomModel}. */
export interface ModelProblem {
  /** The kind of violation. */
  readonly kind: ViolationKind;
  /** What the official client would have tripped over. */
  readonly detail: string;
}

/** The official client's view of its user and room, updated from received commands. */
export class RoomModel {
  /** The authenticated user, from the last `Authenticate(Ok)`. */
  me: UserInfo | null = null;
  /** The room the client believes it is in; null before CreateRoom/JoinRoom Ok and after LeaveRoom Ok. */
  room: ClientRoomState | null = null;

  /**
   * Applies a pushed (non-reply) command. Returns the problem when the
   * official client would have panicked on it.
   */
  applyPush(cmd: ServerCommand): ModelProblem | null {
    const room = this.room;
    switch (cmd.type) {
      case "ChangeState":
        if (!room) return noRoom("ChangeState");
        room.state = cmd.state;
        // The host counts as ready automatically (phira-mp-client `ChangeState`).
        room.is_ready = room.is_host;
        return null;
      case "ChangeHost":
        if (!room) return noRoom("ChangeHost");
        room.is_host = cmd.is_host;
        return null;
      case "OnJoinRoom":
        // Tolerated without a room: the joiner itself gets it before its JoinRoom reply.
        if (room) {
          room.live ||= cmd.user.monitor;
          room.users.set(cmd.user.id, cmd.user);
        }
        return null;
      case "Message": {
        const msg = cmd.message;
        if (msg.type === "LockRoom") {
          if (!room) return noRoom("Message::LockRoom");
          room.locked = msg.lock;
        } else if (msg.type === "CycleRoom") {
          if (!room) return noRoom("Message::CycleRoom");
          room.cycle = msg.cycle;
        } else if (msg.type === "LeaveRoom") {
          if (!room) return noRoom("Message::LeaveRoom");
          room.users.delete(msg.user);
        }
        return null;
      }
      default:
        return null;
    }
  }

  /**
   * Applies what the official client does after an `Ok` reply to a request it
   * was still waiting for (a reply after its timeout changes nothing).
   */
  applyOkReply(request: ClientCommand, reply: ServerCommand): ModelProblem | null {
    switch (reply.type) {
      case "Authenticate": {
        if (!reply.result.ok) return null;
        const [user, room] = reply.result.value;
        this.me = user;
        // Copied: the decoded command stays untouched in the client's log.
        this.room = room ? { ...room, users: new Map(room.users) } : null;
        return null;
      }
      case "CreateRoom": {
        if (request.type !== "CreateRoom") return null;
        const me = this.me;
        this.room = {
          id: request.id,
          state: { type: "SelectChart", chart: null },
          live: false,
          locked: false,
          cycle: false,
          is_host: true,
          is_ready: false,
          users: me ? new Map([[me.id, me]]) : new Map(),
        };
        return me ? null : { kind: "not-authenticated", detail: "CreateRoom(Ok) before Authenticate(Ok)" };
      }
      case "JoinRoom": {
        if (request.type !== "JoinRoom" || !reply.result.ok) return null;
        const resp = reply.result.value;
        this.room = {
          id: request.id,
          state: resp.state,
          live: resp.live,
          // JoinRoomResponse has no locked/cycle: the official client assumes false (protocol.md §3.1).
          locked: false,
          cycle: false,
          is_host: false,
          is_ready: false,
          users: new Map(resp.users.map((u) => [u.id, u])),
        };
        return null;
      }
      case "LeaveRoom":
        this.room = null;
        return null;
      case "RequestStart":
      case "Ready":
      case "CancelReady":
        if (!this.room) return noRoom(`${reply.type}(Ok)`);
        this.room.is_ready = reply.type !== "CancelReady";
        return null;
      default:
        return null;
    }
  }
}

function noRoom(what: string): ModelProblem {
  return { kind: "no-room", detail: `${what} while the client has no room state` };
}
