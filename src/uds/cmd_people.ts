/**
 * OpenUDS commands about people (spec 3 §4.5): administrator ids, users,
 * players (bans, kicks, IP history) and broadcasts.
 *
 * @module
 */

import { z } from "zod";
import { banTargets, type ConsoleServices, MAX_MESSAGE_CHARS, userView } from "../console/mod.ts";
import { command, p, type UdsCommand } from "./command.ts";
import { UdsError } from "./errors.ts";

function adminIds(s: ConsoleServices): { admin_ids: number[] } {
  return { admin_ids: [...s.core.adminIds].sort((a, b) => a - b) };
}

/** The commands about people. */
export function peopleCommands(): UdsCommand[] {
  const reason = z.string().max(200, { error: "must be at most 200 characters" }).optional();
  return [
    command("admin.id_list", {}, (_a, { services: s }) => adminIds(s)),
    command("admin.id_add", { user_id: p.userId() }, (a, { services: s }) => {
      s.core.adminIds.add(a.user_id);
      return adminIds(s);
    }),
    command("admin.id_remove", { user_id: p.userId() }, (a, { services: s }) => {
      if (!s.core.adminIds.delete(a.user_id)) {
        throw new UdsError("USER_NOT_FOUND", `user ${a.user_id} is not an administrator`);
      }
      return adminIds(s);
    }),
    command("admin.id_set", { user_ids: z.array(p.userId(), { error: "expected a list of user ids" }) }, (a, {
      services: s,
    }) => {
      s.core.adminIds.clear();
      for (const id of a.user_ids) s.core.adminIds.add(id);
      return adminIds(s);
    }),
    command("users.list", {}, (_a, { services: s }) => {
      const users = s.core.onlineUsers().map((u) => userView(s.core, u));
      return { users, count: users.length };
    }),
    command("player.info", { user_id: p.userId() }, async (a, { services: s }) => {
      const core = s.core;
      const user = core.users.get(a.user_id);
      const ban = core.bans.userBan(a.user_id);
      return {
        ...(user ? userView(core, user) : { user_id: a.user_id, online: false, admin: core.adminIds.has(a.user_id) }),
        known: user !== undefined,
        banned: ban !== undefined,
        ban_reason: ban?.reason ?? null,
        playtime_secs: await s.playtimeSecs(a.user_id),
      };
    }),
    command("player.kick", { user_id: p.userId(), reason }, (a, { services: s }) => {
      if (!s.admin.kickUser(a.user_id, a.reason ?? "")) {
        throw new UdsError("USER_NOT_FOUND", `user ${a.user_id} is not connected`);
      }
      return { user_id: a.user_id, reason: a.reason ?? "" };
    }),
    command("player.ban", { user_id: p.userId(), reason }, (a, { services: s }) => {
      const online = s.core.users.has(a.user_id);
      s.admin.banUser(a.user_id, a.reason ?? "");
      return { user_id: a.user_id, reason: a.reason ?? "", disconnected: online };
    }),
    command("player.unban", { user_id: p.userId() }, (a, { services: s }) => {
      if (!s.admin.unbanUser(a.user_id)) throw new UdsError("USER_NOT_FOUND", `user ${a.user_id} is not banned`);
      return { user_id: a.user_id };
    }),
    command("player.banlist", {}, (_a, { services: s }) => ({
      bans: s.core.bans.userBans(),
      ip_bans: s.core.bans.ipBans(),
    })),
    command("player.ban_ip", { target: p.text(64), reason }, async (a, { services: s }) => {
      const ips = await banTargets(s, a.target);
      const disconnected = ips.reduce((n, ip) => n + s.admin.banIp(ip, a.reason ?? ""), 0);
      return { ips, reason: a.reason ?? "", disconnected };
    }),
    command("player.unban_ip", { ip: p.text(64) }, (a, { services: s }) => {
      if (!s.admin.unbanIp(a.ip)) throw new UdsError("INVALID_ARGUMENT", `address ${a.ip} is not banned`);
      return { ip: a.ip };
    }),
    command("player.ip_history", { user_id: p.userId() }, async (a, { services: s }) => ({
      user_id: a.user_id,
      ip_history: await s.ipHistory(a.user_id),
    })),
    command("broadcast.all", { message: p.text(MAX_MESSAGE_CHARS) }, (a, { services: s }) => ({
      sent: s.admin.broadcastAll(a.message),
    })),
    command("broadcast.room", { room_id: p.roomId(), message: p.text(MAX_MESSAGE_CHARS) }, (a, { services: s }) => {
      const sent = s.admin.broadcastRoom(a.room_id, a.message);
      if (sent === null) throw new UdsError("ROOM_NOT_FOUND", `room not found: ${a.room_id}`);
      return { room_id: a.room_id, sent };
    }),
    command("broadcast.user", { user_id: p.userId(), message: p.text(MAX_MESSAGE_CHARS) }, (a, { services: s }) => {
      if (!s.admin.broadcastUser(a.user_id, a.message)) {
        throw new UdsError("USER_NOT_FOUND", `user ${a.user_id} is not online`);
      }
      return { user_id: a.user_id, sent: 1 };
    }),
  ];
}
