/**
 * Legacy mode's reactions to what happens in the server:
 *
 * - the Lua hooks named after events (spec 3 §4.8): `on_user_join`,
 *   `on_user_leave` (with the reason as a third argument), `on_room_create`,
 *   `on_room_destroy` from the event bus (reliable delivery, in order), and
 *   `on_user_kick` / `on_user_ban` / `on_user_unban` from the moderation
 *   events. A room hidden or shown at run time looks deleted or created on
 *   the bus; the hooks are told about real creations and deletions only
 *   (the room's uuid tells them apart);
 * - contest rooms: disbanded after a settled round when asked, forgotten
 *   with their room;
 * - the `JoinRoom` guard of room bans and contest whitelists, a veto hook of
 *   the command pipeline (the refusal is the protocol's error reply with a
 *   localized reason).
 *
 * @module
 */

import { translate } from "../src/l10n/mod.ts";
import type { LegacyContext } from "./context.ts";
import type { LuaPluginHost } from "./lua/host.ts";
import { goneRoom, luaRoom, luaUserById } from "./views.ts";

/** Started watchers; `close` stops them. */
export interface Watchers {
  close(): Promise<void>;
}

/** Starts the watchers; `host` is null when no plugin host runs (hooks are then not delivered). */
export function startWatchers(ctx: LegacyContext, host: LuaPluginHost | null): Watchers {
  const core = ctx.core;
  const server = ctx.ops.context.deps.server;
  const announced = new Set<string>(); // uuids of rooms whose creation the hooks saw
  const roomNow = (id: string, uuid: string) => {
    const room = core.rooms.get(id);
    return room && room.uuid === uuid ? luaRoom(core, room) : goneRoom(id, uuid);
  };
  const delivery = core.ctx.bus.deliver((item) => {
    if (item.type !== "event") return;
    const e = item.event;
    switch (e.kind) {
      case "room.created":
        if (announced.has(e.uuid)) return; // shown again after being hidden
        announced.add(e.uuid);
        host?.dispatch("on_room_create", [roomNow(e.room, e.uuid)]);
        return;
      case "room.deleted":
        if (core.rooms.get(e.room)?.uuid === e.uuid) return; // hidden, not deleted
        announced.delete(e.uuid);
        ctx.contests.delete(e.room);
        host?.dispatch("on_room_destroy", [goneRoom(e.room, e.uuid)]);
        return;
      case "room.joined":
        host?.dispatch("on_user_join", [luaUserById(core, e.user, e.name), roomNow(e.room, e.uuid)]);
        return;
      case "room.left":
        host?.dispatch("on_user_leave", [luaUserById(core, e.user, e.name), roomNow(e.room, e.uuid), e.reason]);
        return;
      case "round.completed": {
        const contest = ctx.contests.get(e.room);
        if (!contest?.autoDisband || core.rooms.get(e.room)?.uuid !== e.uuid) return;
        const outcome = ctx.ops.tryCallNow("room.close", { room_id: e.room }, { kind: "system", component: "contest" });
        if (!(outcome instanceof Promise) && outcome.ok) {
          ctx.log.info("contest room disbanded after its round", { room: e.room, round: e.round });
        }
        return;
      }
    }
  }, { name: "legacy", kinds: ["room.created", "room.deleted", "room.joined", "room.left", "round.completed"] });
  const stopModeration = ctx.moderation.listen((e) => {
    if (!host) return;
    if (e.kind === "kick") host.dispatch("on_user_kick", [e.user, e.room, e.reason]);
    else if (e.kind === "ban") host.dispatch("on_user_ban", [e.user, e.reason, e.duration]);
    else host.dispatch("on_user_unban", [e.userId]);
  });
  const removeGuard = server.commands.beforeCommand((view) => {
    if (view.cmd.type !== "JoinRoom" || view.userId === null) return null;
    const room = view.cmd.id;
    const banned = ctx.roomBans.has(room, view.userId);
    if (!banned && ctx.contests.allows(room, view.userId)) return null;
    const locale = core.users.get(view.userId)?.locale ?? "en-US";
    return translate(locale, banned ? "join-room-banned" : "contest-not-whitelisted");
  }, "legacy join guard");
  return {
    async close() {
      removeGuard();
      stopModeration();
      await delivery.close();
    },
  };
}
