/**
 * Operations that change a room (spec 3 §4.5 `room.*`, §4.9 `room.kick`,
 * `room.transfer_host`, `room.set_lock`, `room.close`; the `api-call` names
 * of extended.md §2.18 as aliases). All go through the server's one
 * operator path (`Admin.roomOps`); results are the OpenUDS response data
 * documented in `docs/openuds.md`.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import type { RoomFlags } from "../room/mod.ts";
import { type ServerOp, serverOp } from "./server_op.ts";
import { must, OpsError } from "./errors.ts";
import { MAX_MESSAGE_CHARS, p } from "./params.ts";
import type { OpsServices } from "./services.ts";
import { roomInfo, roomSummary } from "./views.ts";

const state = (s: OpsServices, id: string) => roomSummary(s.room(id)).state;

/** An operation setting one boolean room flag: `{room_id, <key>}` -> `{room_id, <key>}`. */
function flag(name: string, aliases: string[], key: string, flagKey: keyof RoomFlags, summary: string): ServerOp {
  return serverOp({
    name,
    aliases,
    summary,
    permission: "room.manage",
    mutates: true,
    params: { room_id: p.roomId(), [key]: p.bool() },
    run: (a, { context: s }) => {
      const args = a as Record<string, unknown>;
      const id = args.room_id as string;
      const value = args[key] as boolean;
      must(s.admin.roomOps.setFlags(id, { [flagKey]: value }));
      return { room_id: id, [key]: value };
    },
  });
}

/** The operations that change rooms. */
export function roomControlOps(): ServerOp[] {
  const host = z.union([p.userId(), z.literal("system"), z.literal("none"), z.null()], {
    error: 'expected a player id, "system" or null',
  });
  return [
    serverOp({
      name: "room.create",
      aliases: ["room.create_empty"],
      summary: "create a room with nobody in it",
      permission: "room.manage",
      mutates: true,
      params: {
        room_id: p.roomId(),
        endpoint: z.optional(z.nullable(z.string())),
        persistent_empty: z.optional(z.boolean()),
        system_host: z.optional(z.boolean()),
      },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.createEmpty(a.room_id, {
          persistent: a.persistent_empty ?? false,
          endpoint: a.endpoint ?? null,
          systemHost: a.system_host ?? false,
        }));
        return roomInfo(s.core, s.room(a.room_id));
      },
    }),
    serverOp({
      name: "room.close",
      summary: "disband a room: members are told and leave; persistent rooms too",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.close(a.room_id));
        return { room_id: a.room_id, closed: true };
      },
    }),
    serverOp({
      name: "room.start",
      summary: "forced start: selecting \u2192 waiting for ready; waiting \u2192 playing (not ready = aborted)",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.start(a.room_id));
        return { room_id: a.room_id, state: state(s, a.room_id) };
      },
    }),
    serverOp({
      name: "room.cancel_start",
      summary: "cancel a start, or end the running round (unfinished players aborted)",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.cancel(a.room_id));
        return { room_id: a.room_id, state: state(s, a.room_id) };
      },
    }),
    serverOp({
      name: "room.ready",
      summary: "mark a member ready on their behalf",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), user_id: p.userId() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.ready(a.room_id, a.user_id));
        return { room_id: a.room_id, user_id: a.user_id, state: state(s, a.room_id) };
      },
    }),
    flag("room.lock", ["room.set_lock"], "locked", "locked", "lock or unlock a room"),
    flag("room.cycle", ["room.set_cycle"], "cycle", "cycle", "turn host cycling on or off"),
    flag("room.set_tournament", [], "tournament", "tournament", "tournament mode on or off"),
    flag("room.set_live", [], "live", "live", "live (spectated) mode on or off"),
    flag("room.set_hidden", [], "hidden", "hidden", "hide the room from public lists, or show it"),
    flag("room.set_persistent", [], "persistent", "persistent", "keep the room when it empties, or not"),
    flag("room.set_degraded", [], "degraded", "degraded", "degraded mode on or off"),
    serverOp({
      name: "room.set_max_users",
      summary: "set how many players the room takes",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), max_users: z.int({ error: "expected an integer" }).check(z.gte(1), z.lte(10000)) },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.setFlags(a.room_id, { maxPlayers: a.max_users }));
        return { room_id: a.room_id, max_users: a.max_users };
      },
    }),
    serverOp({
      name: "room.set_api_endpoint",
      aliases: ["room.set_phira_api_endpoint"],
      summary: "the room's game API endpoint (an http(s) URL); null = the server's",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), endpoint: z.optional(z.nullable(z.string())) },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.setFlags(a.room_id, { apiEndpoint: a.endpoint ?? null }));
        return { room_id: a.room_id, endpoint: a.endpoint ?? null };
      },
    }),
    serverOp({
      name: "room.clear_phira_api_endpoint",
      summary: "back to the server's game API endpoint",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.setFlags(a.room_id, { apiEndpoint: null }));
        return { room_id: a.room_id, endpoint: null };
      },
    }),
    serverOp({
      name: "room.set_host",
      aliases: ["room.transfer_host"],
      summary: 'set the host: a player id, "system", "none" (the next player to join), null/absent = system',
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), host_id: z.optional(host) },
      run: (a, { context: s }) => {
        // PMP compatibility: absent or null means the system host (extended.md §3.5).
        const target = a.host_id === undefined || a.host_id === null || a.host_id === -1
          ? "system"
          : a.host_id === "none"
          ? null
          : a.host_id;
        must(s.admin.roomOps.setHost(a.room_id, target));
        return { room_id: a.room_id, host_id: target === "system" ? -1 : target };
      },
    }),
    serverOp({
      name: "room.set_chart",
      summary: "select a chart (name fetched upstream when absent; audio length probed unless given)",
      permission: "room.manage",
      mutates: true,
      params: {
        room_id: p.roomId(),
        chart_id: p.userId(),
        chart_name: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
        duration_secs: z.optional(z.number().check(z.positive(), z.lte(86_400))),
      },
      run: async (a, { context: s }) => {
        must(await s.admin.roomOps.setChart(a.room_id, a.chart_id, a.chart_name, a.duration_secs));
        return { room_id: a.room_id, chart_id: a.chart_id, chart_name: s.room(a.room_id).chart?.name ?? null };
      },
    }),
    serverOp({
      name: "room.kick",
      summary: "take a member out of the room (they stay connected)",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), user_id: p.userId(), reason: p.reason() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.kick(a.room_id, a.user_id));
        // The reason reaches the user as the localized "removed by an administrator" notice.
        if (a.reason) s.core.sendText([a.user_id], { key: "kicked-by-admin", args: { reason: `: ${a.reason}` } });
        return { room_id: a.room_id, user_id: a.user_id };
      },
    }),
    serverOp({
      name: "room.force_move",
      summary: "move an online user into the room (their client reconnects into it)",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), user_id: p.userId(), monitor: z.optional(z.boolean()) },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.forceMove(a.user_id, a.room_id, a.monitor ?? false));
        return { room_id: a.room_id, user_id: a.user_id, monitor: a.monitor ?? false };
      },
    }),
    serverOp({
      name: "room.ban",
      summary: "ban a user from the room (removes them if inside)",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), user_id: p.userId(), reason: p.reason() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.ban(a.room_id, a.user_id, a.reason ?? ""));
        return { room_id: a.room_id, user_id: a.user_id, reason: a.reason ?? "" };
      },
    }),
    serverOp({
      name: "room.unban",
      summary: "lift a room ban",
      permission: "room.manage",
      mutates: true,
      params: { room_id: p.roomId(), user_id: p.userId() },
      run: (a, { context: s }) => {
        must(s.admin.roomOps.unban(a.room_id, a.user_id));
        return { room_id: a.room_id, user_id: a.user_id };
      },
    }),
    serverOp({
      name: "room.chat_send",
      aliases: ["send_room_chat"],
      summary: "chat in a room as one of its online members (what they could say themselves)",
      permission: "admin",
      mutates: true,
      params: { room_id: p.roomId(), user_id: p.userId(), content: p.text(MAX_MESSAGE_CHARS) },
      run: (a, { context: s }) => {
        const core = s.core;
        s.room(a.room_id);
        const user = core.users.get(a.user_id);
        // Only what the user could say themselves: online and inside this room.
        if (!user?.session) throw new OpsError("USER_NOT_FOUND", `user ${a.user_id} is not online`);
        if (user.roomId !== a.room_id) throw new OpsError("FORBIDDEN", `user ${a.user_id} is not in room ${a.room_id}`);
        if (!core.ctx.config.chat_enabled) throw new OpsError("FORBIDDEN", "chat is disabled on this server");
        must(s.admin.roomOps.chat(a.room_id, a.user_id, a.content));
        return { room_id: a.room_id, user_id: a.user_id, content: a.content };
      },
    }),
  ];
}
