/**
 * Contest rooms (lua-cpp `enable_contest`, `start_contest`, contest
 * whitelist; tphira `/admin/contest/rooms/:roomId/*`), driven through the
 * core's tournament mode:
 *
 * - **whitelist**: only listed users may join (players and monitors; checked
 *   by legacy mode's `JoinRoom` hook). An empty list given when enabling
 *   means the room's current members, and members present are always added
 *   (tphira: "no one already inside is kicked by mistake").
 * - **manual start**: the room turns to tournament mode (no countdown start,
 *   no automatic host changes) and an organiser seat joins it as a monitor.
 *   The core starts a round when every player and every monitor is ready;
 *   the organiser seat is ready only when `start_contest` says so, so the
 *   host's `RequestStart` opens the ready phase and the round then waits for
 *   the organiser -- tphira's behaviour. `force` starts at once, players not
 *   ready count as aborted.
 * - **auto-disband**: the room is closed once a round is settled (done by
 *   the contest watcher in `app.ts`).
 *
 * @module
 */

import * as z from "../src/util/zod.ts";
import { OpsError, p, type ServerOp, serverOp } from "../src/ops/mod.ts";
import { joinRoom } from "../src/room/mod.ts";
import type { LegacyContext } from "./context.ts";
import { callNow } from "./ops_call.ts";

/** The organiser seat's user id (a negative id: never a real player). */
export const ORGANISER_ID = -2_000_000_001;
/** Its name in member lists. */
export const ORGANISER_NAME = "Contest organiser";

/** Contest operations. */
export function contestOps(ctx: LegacyContext): ServerOp[] {
  const core = ctx.core;
  const room = (id: string) =>
    core.rooms.get(id) ?? (() => {
      throw new OpsError("ROOM_NOT_FOUND", `room not found: ${id}`);
    })();
  const contest = (id: string) =>
    ctx.contests.get(id) ?? (() => {
      throw new OpsError("INVALID_STATE", `room ${id} is not a contest room`);
    })();
  const members = (id: string) => {
    const r = core.rooms.get(id);
    return r ? [...r.players, ...r.monitors].map((m) => m.id).filter((m) => m !== ORGANISER_ID) : [];
  };
  const seatOrganiser = (id: string) => {
    const r = room(id);
    if (r.monitors.some((m) => m.id === ORGANISER_ID)) return;
    const member = { id: ORGANISER_ID, name: ORGANISER_NAME, monitor: true };
    core.apply(id, joinRoom(r, member, core.roomCtx(), { canMonitor: true, confirmedLateJoin: true }), null);
  };
  const view = (id: string) => {
    const c = ctx.contests.get(id);
    return c
      ? {
        room_id: id,
        enabled: true,
        whitelist: [...c.whitelist].sort((a, b) => a - b),
        manual_start: c.manualStart,
        auto_disband: c.autoDisband,
      }
      : { room_id: id, enabled: false, whitelist: [], manual_start: false, auto_disband: false };
  };
  return [
    serverOp({
      name: "legacy.contest_config",
      summary: "turn a room into a contest room (whitelist, manual start, disband after the round) or back",
      permission: "room.manage",
      mutates: true,
      params: {
        room_id: p.roomId(),
        enabled: p.bool(),
        whitelist: z.optional(z.array(p.userId()).check(z.maxLength(1000))),
        manual_start: z._default(z.boolean(), true),
        auto_disband: z._default(z.boolean(), true),
      },
      run: (a, call) => {
        const r = room(a.room_id);
        if (a.enabled) {
          const whitelist = new Set([...(a.whitelist ?? []), ...members(a.room_id)]);
          ctx.contests.set(a.room_id, { whitelist, manualStart: a.manual_start, autoDisband: a.auto_disband });
          if (a.manual_start) {
            if (!r.tournament) callNow(ctx.ops, call, "room.set_tournament", { room_id: a.room_id, tournament: true });
            seatOrganiser(a.room_id);
          }
        } else if (ctx.contests.delete(a.room_id)) {
          if (r.monitors.some((m) => m.id === ORGANISER_ID)) {
            callNow(ctx.ops, call, "room.kick", { room_id: a.room_id, user_id: ORGANISER_ID });
          }
          if (core.rooms.get(a.room_id)?.tournament) {
            callNow(ctx.ops, call, "room.set_tournament", { room_id: a.room_id, tournament: false });
          }
        }
        return view(a.room_id);
      },
    }),
    serverOp({
      name: "legacy.contest_whitelist",
      summary: "set, extend or shrink a contest room's whitelist (members present are always kept)",
      permission: "room.manage",
      mutates: true,
      params: {
        room_id: p.roomId(),
        user_ids: z.array(p.userId()).check(z.maxLength(1000)),
        mode: z._default(z.enum(["set", "add", "remove"]), "set"),
      },
      run: (a) => {
        const c = contest(a.room_id);
        const next = new Set(a.mode === "set" ? a.user_ids : c.whitelist);
        if (a.mode === "add") { for (const id of a.user_ids) next.add(id); }
        if (a.mode === "remove") { for (const id of a.user_ids) next.delete(id); }
        for (const id of members(a.room_id)) next.add(id);
        ctx.contests.set(a.room_id, { ...c, whitelist: next });
        return view(a.room_id);
      },
    }),
    serverOp({
      name: "legacy.contest_start",
      summary: "start a contest room's round: once everyone is ready, or now (force; not ready = aborted)",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), force: z._default(z.boolean(), false) },
      run: (a, call) => {
        contest(a.room_id);
        const r = room(a.room_id);
        if (r.phase.kind === "play") throw new OpsError("INVALID_STATE", `room ${a.room_id} is already playing`);
        if (a.force) {
          if (r.phase.kind === "select") callNow(ctx.ops, call, "room.start", { room_id: a.room_id });
          const now = core.rooms.get(a.room_id);
          if (now?.phase.kind === "wait") callNow(ctx.ops, call, "room.start", { room_id: a.room_id });
          return { room_id: a.room_id, started: true, forced: true };
        }
        if (r.phase.kind !== "wait") {
          throw new OpsError("INVALID_STATE", `room ${a.room_id} is not waiting for ready (the host starts first)`);
        }
        const phase = r.phase;
        const missing = r.players.filter((pl) => !phase.ready.includes(pl.id)).map((pl) => pl.id);
        if (missing.length) {
          throw new OpsError("INVALID_STATE", `not everyone is ready (waiting for ${missing.join(", ")})`);
        }
        if (r.monitors.some((m) => m.id === ORGANISER_ID) && !phase.ready.includes(ORGANISER_ID)) {
          callNow(ctx.ops, call, "room.ready", { room_id: a.room_id, user_id: ORGANISER_ID });
        } else callNow(ctx.ops, call, "room.start", { room_id: a.room_id });
        return { room_id: a.room_id, started: true, forced: false };
      },
    }),
    serverOp({
      name: "legacy.contest_info",
      summary: "a room's contest settings",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a) => {
        room(a.room_id);
        return view(a.room_id);
      },
    }),
  ];
}
