/**
 * Operator actions on rooms (spec 3 §4.2 `room ...`, §4.5 `room.*`): the one
 * server-side path of every operator, script and plugin room change. The
 * operations layer (`src/ops`) is its only caller; the console, OpenUDS,
 * HTTP admin, plugin hosts and the in-process benchmark reach it through
 * operations. Each runs the room machine's operator transitions, so members
 * see the same messages a host action would produce.
 *
 * @module
 */

import type { LocalText, MessageKey } from "../l10n/mod.ts";
import { translate } from "../l10n/mod.ts";
import {
  adminCancel,
  adminReady,
  adminSelectChart,
  adminStart,
  chat,
  closeRoom,
  createEmptyRoom,
  joinRoom,
  removeMember,
  type Room,
  roomBan,
  type RoomFlags,
  roomUnban,
  setFlags,
  setHost,
  SYSTEM_HOST,
  type Transition,
} from "../room/mod.ts";
import { roomIdProblem } from "../protocol/mod.ts";
import type { ReplyValue } from "../room/mod.ts";
import type { Result } from "../protocol/mod.ts";
import type { ServerCore } from "./core.ts";

/** Error codes shared by every operator front end (spec 3 §7 rule 1). */
export type AdminErrorCode =
  | "ROOM_NOT_FOUND"
  | "USER_NOT_FOUND"
  | "INVALID_ARGUMENT"
  | "INVALID_STATE"
  | "CONFLICT"
  | "FORBIDDEN"
  | "INTERNAL";

/** Outcome of an operator action. */
export type AdminResult<T = null> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: AdminErrorCode; readonly message: string };

/** Success. */
export function done<T>(value: T): AdminResult<T> {
  return { ok: true, value };
}

/** Failure with a code and an English message. */
export function refused(code: AdminErrorCode, message: string): AdminResult<never> {
  return { ok: false, code, message };
}

const CODE_OF: Partial<Record<MessageKey, AdminErrorCode>> = {
  "room-not-found": "ROOM_NOT_FOUND",
  "user-not-in-room": "USER_NOT_FOUND",
  "user-not-found": "USER_NOT_FOUND",
  "invalid-argument": "INVALID_ARGUMENT",
  "invalid-state": "INVALID_STATE",
  "start-no-chart-selected": "INVALID_STATE",
  "room-empty": "INVALID_STATE",
  "already-ready": "CONFLICT",
  "already-in-room": "CONFLICT",
  "create-id-occupied": "CONFLICT",
};

/** Applies an operator transition and turns its reply into a result. */
function applyAdmin(core: ServerCore, roomId: string, t: Transition): AdminResult {
  let outcome: Result<ReplyValue, LocalText> | null = null;
  core.apply(roomId, t, { reply: (r) => (outcome = r) });
  const r = outcome as Result<ReplyValue, LocalText> | null;
  if (!r || r.ok) return done(null);
  return refused(CODE_OF[r.error.key] ?? "INVALID_STATE", translate("en-US", r.error.key, r.error.args));
}

/** Operator actions on rooms. */
export class AdminRooms {
  readonly #core: ServerCore;

  constructor(core: ServerCore) {
    this.#core = core;
  }

  #room(id: string): Room | AdminResult<never> {
    return this.#core.rooms.get(id) ?? refused("ROOM_NOT_FOUND", `room not found: ${id}`);
  }

  #on(id: string, step: (room: Room) => Transition): AdminResult {
    const room = this.#room(id);
    if ("ok" in room) return room;
    return applyAdmin(this.#core, id, step(room));
  }

  /** Creates a room with nobody in it (spec 3 §4.5 `room.create`). */
  createEmpty(
    id: string,
    options: { persistent?: boolean; endpoint?: string | null; systemHost?: boolean } = {},
  ): AdminResult {
    const core = this.#core;
    const problem = roomIdProblem(id);
    if (problem) return refused("INVALID_ARGUMENT", `invalid room id "${id}": ${problem}`);
    if (core.rooms.has(id)) return refused("CONFLICT", `room ${id} already exists`);
    if (options.endpoint && !/^https?:\/\//.test(options.endpoint)) {
      return refused("INVALID_ARGUMENT", "endpoint must be an http(s) URL");
    }
    const t = createEmptyRoom(id, core.roomCtx(), {
      maxPlayers: core.ctx.config.max_users_per_room,
      persistent: options.persistent ?? false,
      apiEndpoint: options.endpoint ?? null,
      systemHost: options.systemHost ?? false,
    });
    return applyAdmin(core, id, t);
  }

  /** Forced start (`room start`). */
  start(id: string): AdminResult {
    return this.#on(id, (r) => adminStart(r, this.#core.roomCtx()));
  }

  /** Cancels a start or a running round (`room cancel`). */
  cancel(id: string): AdminResult {
    return this.#on(id, (r) => adminCancel(r, this.#core.roomCtx()));
  }

  /** Marks a member ready (`room ready`). */
  ready(id: string, userId: number): AdminResult {
    return this.#on(id, (r) => adminReady(r, userId, this.#core.roomCtx()));
  }

  /** Sets the host: a player id, `"system"`, or null for none (`room set <id> host`). */
  setHost(id: string, target: number | "system" | null): AdminResult {
    const host = target === "system" ? SYSTEM_HOST : target;
    return this.#on(id, (r) => setHost(r, host, this.#core.roomCtx()));
  }

  /** Changes room flags (`room set <id> lock|cycle|hidden|persistent|degraded|tournament|live|...`). */
  setFlags(id: string, flags: RoomFlags): AdminResult {
    if (flags.apiEndpoint && !/^https?:\/\//.test(flags.apiEndpoint)) {
      return refused("INVALID_ARGUMENT", "endpoint must be an http(s) URL");
    }
    return this.#on(id, (r) => setFlags(r, flags, this.#core.roomCtx()));
  }

  /**
   * Selects a chart; the name is looked up upstream when not given (fallback
   * `#<id>`). The audio length is probed in the background unless given.
   */
  async setChart(id: string, chartId: number, name?: string, durationSecs?: number): Promise<AdminResult> {
    const core = this.#core;
    const room = this.#room(id);
    if ("ok" in room) return room;
    if (!Number.isInteger(chartId)) return refused("INVALID_ARGUMENT", "chart id must be an integer");
    let chartName = name;
    if (!chartName) {
      chartName = await core.upstreamFor(room).chart(chartId, { budgetMs: core.ctx.config.auth_budget_ms }).then(
        (c) => c.name,
        () => `#${chartId}`,
      );
    }
    const now = core.rooms.get(id);
    if (!now) return refused("ROOM_NOT_FOUND", `room not found: ${id}`);
    const result = applyAdmin(
      core,
      id,
      adminSelectChart(now, { id: chartId, name: chartName, durationSecs: durationSecs ?? null }, core.roomCtx()),
    );
    if (result.ok && durationSecs === undefined) core.resolveChartDuration(id, chartId);
    return result;
  }

  /** Disbands a room: every member leaves with a notice, and the room is deleted even if persistent (`room close`). */
  close(id: string): AdminResult {
    return this.#on(id, (r) => closeRoom(r, this.#core.roomCtx()));
  }

  /** A chat message in the room as one of its members (`room.chat_send`); the caller checks who may say it. */
  chat(id: string, userId: number, content: string): AdminResult {
    return this.#on(id, (r) => chat(r, userId, content, this.#core.roomCtx()));
  }

  /** Takes a member out of the room, keeping them connected (`room kick`). */
  kick(id: string, userId: number): AdminResult {
    return this.#on(id, (r) => removeMember(r, userId, "kick", "removed-from-room", this.#core.roomCtx()));
  }

  /** Bans a user from the room (`room ban`). */
  ban(id: string, userId: number, reason = ""): AdminResult {
    return this.#on(id, (r) => roomBan(r, userId, reason, this.#core.roomCtx()));
  }

  /** Lifts a room ban (`room unban`). */
  unban(id: string, userId: number): AdminResult {
    return this.#on(id, (r) => roomUnban(r, userId, this.#core.roomCtx()));
  }

  /**
   * Moves an online user into a room. The official client cannot be told it
   * joined a room it did not ask for (an unsolicited `JoinRoom` reply crashes
   * it, protocol.md §5.5), so the server moves the membership, then closes
   * the connection: the client's automatic reconnect receives the new room in
   * `Authenticate(Ok)`. A user whose login is pending is refused: the reply
   * queued for the new connection already names the old room, and its client
   * would hold room state the server no longer has (spec 3 §3.2).
   */
  forceMove(userId: number, id: string, monitor = false): AdminResult {
    const core = this.#core;
    const user = core.users.get(userId);
    if (user?.pending) return refused("CONFLICT", `user ${userId} is logging in; try again`);
    if (!user?.session) return refused("USER_NOT_FOUND", `user ${userId} is not online`);
    const target = core.rooms.get(id);
    if (!target) return refused("ROOM_NOT_FOUND", `room not found: ${id}`);
    if (user.roomId === id) return refused("CONFLICT", `user ${userId} is already in room ${id}`);
    const current = core.roomOf(user);
    if (current) {
      const left = applyAdmin(core, current.id, removeMember(current, userId, "moved", null, core.roomCtx()));
      if (!left.ok) return left;
    }
    const joined = applyAdmin(
      core,
      id,
      joinRoom(core.rooms.get(id)!, { id: user.id, name: user.name, monitor }, core.roomCtx(), {
        canMonitor: true,
        confirmedLateJoin: true,
      }),
    );
    if (!joined.ok) return joined;
    core.sendText([userId], { key: "user-moved-to-room", args: { room: id } });
    const session = user.session;
    if (session) void session.closeAfterFlush(session.outbound.enqueuedSeq, "kicked");
    return done(null);
  }
}
