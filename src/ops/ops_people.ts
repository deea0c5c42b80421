/**
 * Operations about people (spec 3 §4.5 `users.list`, `player.*`,
 * `admin.id_*`, `broadcast.*`; §4.9 `admin.kick_user`, `admin.ban_user`,
 * `admin.unban_user`, `admin.is_banned`, `admin.ban_list`,
 * `admin.list_users`, `user.room_history`, `user_name`; the `api-call`
 * names of extended.md §2.18 as aliases): users, kicks, bans by id and
 * address, IP and room history, playtime, administrator ids, broadcasts.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { parseIp } from "../net/mod.ts";
import { seesAddresses } from "./actor.ts";
import { type ServerOp, serverOp } from "./server_op.ts";
import { invalid, OpsError } from "./errors.ts";
import { p } from "./params.ts";
import type { OpsServices } from "./services.ts";
import { userView } from "./views.ts";

/** Addresses to ban for a target: the address itself, or every address known for a user id. */
export async function banTargets(s: OpsServices, target: string): Promise<string[]> {
  if (parseIp(target)) return [target];
  if (!/^-?\d+$/.test(target)) invalid(`invalid target "${target}": expected an IP address or a user id`);
  const id = Number(target);
  const ips = new Set((await s.ipHistory(id)).map((r) => r.ip));
  const live = s.core.users.get(id)?.session?.ip;
  if (live) ips.add(live);
  if (!ips.size) throw new OpsError("USER_NOT_FOUND", `no address known for user ${id}`);
  return [...ips];
}

function adminIds(s: OpsServices): { admin_ids: number[] } {
  return { admin_ids: [...s.core.adminIds].sort((a, b) => a - b) };
}

/** The operations about users, bans and administrator ids. */
export function peopleOps(): ServerOp[] {
  return [
    serverOp({
      name: "users.list",
      aliases: ["admin.list_users"],
      summary: "online users (id, name, room, language; address for people and admin plugins)",
      permission: "state.read",
      run: (_a, { context: s, actor }) => {
        const ips = seesAddresses(actor);
        const users = s.core.onlineUsers().map((u) => ({ ...userView(s.core, u), ...(ips ? {} : { ip: null }) }));
        return { users, count: users.length };
      },
    }),
    serverOp({
      name: "player.info",
      summary: "a user: online state, room, ban and playtime",
      permission: "state.read",
      params: { user_id: p.userId() },
      run: async (a, { context: s, actor }) => {
        const core = s.core;
        const user = core.users.get(a.user_id);
        const ban = core.bans.userBan(a.user_id);
        const view = user ? userView(core, user) : null;
        return {
          ...(view
            ? { ...view, ...(seesAddresses(actor) ? {} : { ip: null }) }
            : { user_id: a.user_id, online: false, admin: core.adminIds.has(a.user_id) }),
          known: user !== undefined,
          banned: ban !== undefined,
          ban_reason: ban?.reason ?? null,
          playtime_secs: await s.playtimeSecs(a.user_id),
        };
      },
    }),
    serverOp({
      name: "user_name",
      summary: "the name of a user who is known now or ever logged in (durable store), or null",
      permission: "state.read",
      params: { user_id: p.userId() },
      run: async (a, { context: s }) => {
        const known = s.core.users.get(a.user_id)?.name;
        if (known !== undefined) return { user_id: a.user_id, name: known };
        const stored = await s.deps.persistence?.queries.user(a.user_id);
        return { user_id: a.user_id, name: stored?.name ?? null };
      },
    }),
    serverOp({
      name: "user.is_online",
      summary: "true when the user has a live connection",
      permission: "state.read",
      params: { user_id: p.userId() },
      run: (a, { context: s }) => (s.core.users.get(a.user_id)?.session ?? null) !== null,
    }),
    serverOp({
      name: "user.room_history",
      summary: "rooms a user visited, newest first (durable store, else since this process started)",
      permission: "state.read",
      params: { user_id: p.userId(), limit: p.limit(20, 1000) },
      run: async (a, { context: s }) => {
        const { source, visits } = await s.userRooms(a.user_id, a.limit);
        return { user_id: a.user_id, source, visits };
      },
    }),
    serverOp({
      name: "player.kick",
      aliases: ["admin.kick_user", "user.kick"],
      summary: "disconnect a user (they may log in again)",
      permission: "admin",
      mutates: true,
      params: { user_id: p.userId(), reason: p.reason() },
      run: (a, { context: s }) => {
        if (!s.admin.kickUser(a.user_id, a.reason ?? "")) {
          throw new OpsError("USER_NOT_FOUND", `user ${a.user_id} is not connected`);
        }
        return { user_id: a.user_id, reason: a.reason ?? "" };
      },
    }),
    serverOp({
      name: "player.ban",
      aliases: ["admin.ban_user", "ban.add"],
      summary: "ban a user id (disconnects them if online)",
      permission: "admin",
      mutates: true,
      params: { user_id: p.userId(), reason: p.reason() },
      run: (a, { context: s }) => {
        const online = s.core.users.has(a.user_id);
        s.admin.banUser(a.user_id, a.reason ?? "");
        return { user_id: a.user_id, reason: a.reason ?? "", disconnected: online };
      },
    }),
    serverOp({
      name: "player.unban",
      aliases: ["admin.unban_user", "ban.remove"],
      summary: "lift a user ban",
      permission: "admin",
      mutates: true,
      params: { user_id: p.userId() },
      run: (a, { context: s }) => {
        if (!s.admin.unbanUser(a.user_id)) throw new OpsError("USER_NOT_FOUND", `user ${a.user_id} is not banned`);
        return { user_id: a.user_id };
      },
    }),
    serverOp({
      name: "admin.is_banned",
      aliases: ["ban.check"],
      summary: "true when the user id is banned",
      permission: "admin",
      params: { user_id: p.userId() },
      run: (a, { context: s }) => s.core.bans.userBan(a.user_id) !== undefined,
    }),
    serverOp({
      name: "player.banlist",
      aliases: ["admin.ban_list", "ban.list"],
      summary: "banned user ids and addresses",
      permission: "admin",
      run: (_a, { context: s }) => ({ bans: s.core.bans.userBans(), ip_bans: s.core.bans.ipBans() }),
    }),
    serverOp({
      name: "player.ban_ip",
      summary: "ban an address, or every address known for a user id",
      permission: "admin",
      mutates: true,
      params: { target: p.text(64), reason: p.reason() },
      run: async (a, { context: s }) => {
        const ips = await banTargets(s, a.target);
        const disconnected = ips.reduce((n, ip) => n + s.admin.banIp(ip, a.reason ?? ""), 0);
        return { ips, reason: a.reason ?? "", disconnected };
      },
    }),
    serverOp({
      name: "player.unban_ip",
      summary: "lift an address ban",
      permission: "admin",
      mutates: true,
      params: { ip: p.text(64) },
      run: (a, { context: s }) => {
        if (!s.admin.unbanIp(a.ip)) throw new OpsError("INVALID_ARGUMENT", `address ${a.ip} is not banned`);
        return { ip: a.ip };
      },
    }),
    serverOp({
      name: "player.ip_history",
      summary: "addresses a user connected from, newest first",
      permission: "admin",
      params: { user_id: p.userId() },
      run: async (a, { context: s }) => ({ user_id: a.user_id, ip_history: await s.ipHistory(a.user_id) }),
    }),
    serverOp({
      name: "admin.id_list",
      aliases: ["admin.list"],
      summary: "game user ids with in-game console rights",
      permission: "admin",
      run: (_a, { context: s }) => adminIds(s),
    }),
    serverOp({
      name: "admin.check",
      summary: "true when the user id has in-game console rights",
      permission: "admin",
      params: { user_id: p.userId() },
      run: (a, { context: s }) => s.core.adminIds.has(a.user_id),
    }),
    serverOp({
      name: "admin.id_add",
      aliases: ["admin.add"],
      summary: "give a game user in-game console rights",
      permission: "admin",
      mutates: true,
      params: { user_id: p.userId() },
      run: (a, { context: s }) => {
        s.core.adminIds.add(a.user_id);
        return adminIds(s);
      },
    }),
    serverOp({
      name: "admin.id_remove",
      aliases: ["admin.remove"],
      summary: "take in-game console rights away",
      permission: "admin",
      mutates: true,
      params: { user_id: p.userId() },
      run: (a, { context: s }) => {
        if (!s.core.adminIds.delete(a.user_id)) {
          throw new OpsError("USER_NOT_FOUND", `user ${a.user_id} is not an administrator`);
        }
        return adminIds(s);
      },
    }),
    serverOp({
      name: "admin.id_set",
      aliases: ["admin.set"],
      summary: "replace the administrator ids",
      permission: "admin",
      mutates: true,
      params: { user_ids: z.array(p.userId(), { error: "expected a list of user ids" }) },
      run: (a, { context: s }) => {
        s.core.adminIds.clear();
        for (const id of a.user_ids) s.core.adminIds.add(id);
        return adminIds(s);
      },
    }),
  ];
}
