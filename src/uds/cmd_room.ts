/**
 * OpenUDS `room.*` commands (spec 3 §4.5). Response data shapes are in
 * `docs/openuds.md`; they reuse the console's views.
 *
 * @module
 */

import { z } from "zod";
import {
  closeRoomNow,
  type ConsoleServices,
  MAX_MESSAGE_CHARS,
  roomInfo,
  type RoomSummary,
  roomSummary,
  unwrap,
} from "../console/mod.ts";
import { chat } from "../room/mod.ts";
import { applyAdmin } from "../server/mod.ts";
import { command, p, type UdsCommand } from "./command.ts";
import { UdsError } from "./errors.ts";

function room(s: ConsoleServices, id: string) {
  const r = s.core.rooms.get(id);
  if (!r) throw new UdsError("ROOM_NOT_FOUND", `room not found: ${id}`);
  return r;
}

const STATES = ["SelectingChart", "WaitingForReady", "Playing"] as const;

/** `room.list` filters. */
const Filters = z.object({
  state: z.enum(STATES, { error: `expected one of ${STATES.join(", ")}` }).optional(),
  hidden: z.boolean().optional(),
  locked: z.boolean().optional(),
  live: z.boolean().optional(),
  tournament: z.boolean().optional(),
  persistent: z.boolean().optional(),
  prefix: z.string().optional(),
}, { error: "expected an object of filters" });

function keep(r: RoomSummary, f: z.output<typeof Filters>): boolean {
  return (f.state === undefined || r.state === f.state) && (f.hidden === undefined || r.hidden === f.hidden) &&
    (f.locked === undefined || r.locked === f.locked) && (f.live === undefined || r.live === f.live) &&
    (f.tournament === undefined || r.tournament === f.tournament) &&
    (f.persistent === undefined || r.persistent === f.persistent) &&
    (f.prefix === undefined || r.room_id.startsWith(f.prefix));
}

/** A boolean room flag setter. */
function flag(name: string, key: string, set: (s: ConsoleServices, id: string, v: boolean) => void): UdsCommand {
  return command(name, { room_id: p.roomId(), [key]: p.bool() }, (a, call) => {
    const args = a as Record<string, unknown>;
    const id = args.room_id as string;
    const value = args[key] as boolean;
    set(call.services, id, value);
    return { room_id: id, [key]: value };
  });
}

/** The room commands. */
export function roomCommands(): UdsCommand[] {
  const ops = (s: ConsoleServices) => s.admin.roomOps;
  const state = (s: ConsoleServices, id: string) => roomSummary(room(s, id)).state;
  return [
    command("room.create", {
      room_id: p.roomId(),
      endpoint: z.string().nullable().optional(),
      persistent_empty: z.boolean().optional(),
      system_host: z.boolean().optional(),
    }, (a, { services: s }) => {
      unwrap(
        ops(s).createEmpty(a.room_id, {
          persistent: a.persistent_empty ?? false,
          endpoint: a.endpoint ?? null,
          systemHost: a.system_host ?? false,
        }),
      );
      return roomInfo(s.core, room(s, a.room_id));
    }),
    command("room.close", { room_id: p.roomId() }, (a, { services: s }) => {
      closeRoomNow(s, a.room_id);
      return { room_id: a.room_id, closed: true };
    }),
    command("room.start", { room_id: p.roomId() }, (a, { services: s }) => {
      unwrap(ops(s).start(a.room_id));
      return { room_id: a.room_id, state: state(s, a.room_id) };
    }),
    command("room.cancel_start", { room_id: p.roomId() }, (a, { services: s }) => {
      unwrap(ops(s).cancel(a.room_id));
      return { room_id: a.room_id, state: state(s, a.room_id) };
    }),
    command("room.info", { room_id: p.roomId() }, (a, { services: s }) => roomInfo(s.core, room(s, a.room_id))),
    command("room.uuid", { room_id: p.roomId() }, (a, { services: s }) => ({
      room_id: a.room_id,
      uuid: room(s, a.room_id).uuid,
    })),
    command("room.history", { room_id: p.roomId(), limit: p.limit(100, 1000) }, async (a, { services: s }) => {
      const { source, rounds } = await s.roomRounds(a.room_id, a.limit);
      return { room_id: a.room_id, source, rounds };
    }),
    command("room.rounds", { room_id: p.roomId(), limit: p.limit(100, 1000) }, async (a, { services: s }) => {
      const { source, rounds } = await s.roomRounds(a.room_id, a.limit);
      return {
        room_id: a.room_id,
        source,
        rounds: rounds.map((r) => ({
          round_id: r.round_id,
          chart_id: r.chart_id,
          chart_name: r.chart_name,
          started_at: r.started_at,
          finished_at: r.finished_at,
          results: r.results.length,
          aborted: r.aborted.length,
        })),
      };
    }),
    command("room.round", { room_id: p.roomId(), round_id: p.text(64) }, async (a, { services: s }) => {
      const { source, round } = await s.round(a.room_id, a.round_id);
      return { source, ...round };
    }),
    command("room.chat_history", { room_id: p.roomId() }, (a, { services: s }) => {
      const r = room(s, a.room_id);
      const name = (id: number) => r.players.find((m) => m.id === id)?.name ?? s.core.users.get(id)?.name ?? null;
      const messages = r.chat.map((c) => ({
        user_id: c.user,
        user_name: name(c.user),
        content: c.content,
        time: c.time,
      }));
      return { room_id: a.room_id, messages, count: messages.length };
    }),
    command("room.chat_send", {
      room_id: p.roomId(),
      user_id: p.userId(),
      content: p.text(MAX_MESSAGE_CHARS),
    }, (a, { services: s }) => {
      const core = s.core;
      const r = room(s, a.room_id);
      const user = core.users.get(a.user_id);
      // Only what the user could say themselves: online and inside this room.
      if (!user?.session) throw new UdsError("USER_NOT_FOUND", `user ${a.user_id} is not online`);
      if (user.roomId !== a.room_id) {
        throw new UdsError("FORBIDDEN", `user ${a.user_id} is not in room ${a.room_id}`);
      }
      if (!core.ctx.config.chat_enabled) throw new UdsError("FORBIDDEN", "chat is disabled on this server");
      unwrap(applyAdmin(core, r.id, chat(r, a.user_id, a.content, core.roomCtx())));
      return { room_id: a.room_id, user_id: a.user_id, content: a.content };
    }),
    command("room.ready", { room_id: p.roomId(), user_id: p.userId() }, (a, { services: s }) => {
      unwrap(ops(s).ready(a.room_id, a.user_id));
      return { room_id: a.room_id, user_id: a.user_id, state: state(s, a.room_id) };
    }),
    flag("room.lock", "locked", (s, id, v) => unwrap(ops(s).setFlags(id, { locked: v }))),
    flag("room.cycle", "cycle", (s, id, v) => unwrap(ops(s).setFlags(id, { cycle: v }))),
    flag("room.set_tournament", "tournament", (s, id, v) => unwrap(ops(s).setFlags(id, { tournament: v }))),
    flag("room.set_live", "live", (s, id, v) => unwrap(ops(s).setFlags(id, { live: v }))),
    flag("room.set_hidden", "hidden", (s, id, v) => unwrap(ops(s).setFlags(id, { hidden: v }))),
    flag("room.set_persistent", "persistent", (s, id, v) => unwrap(ops(s).setFlags(id, { persistent: v }))),
    flag("room.set_degraded", "degraded", (s, id, v) => unwrap(ops(s).setFlags(id, { degraded: v }))),
    command("room.set_api_endpoint", { room_id: p.roomId(), endpoint: z.string().nullable().optional() }, (
      a,
      { services: s },
    ) => {
      unwrap(ops(s).setFlags(a.room_id, { apiEndpoint: a.endpoint ?? null }));
      return { room_id: a.room_id, endpoint: a.endpoint ?? null };
    }),
    command("room.set_host", {
      room_id: p.roomId(),
      host_id: z.union([p.userId(), z.literal("system"), z.null()], {
        error: 'expected a player id, "system" or null',
      }).optional(),
    }, (a, { services: s }) => {
      // PMP compatibility: absent or null means the system host (extended.md §3.5).
      const target = a.host_id === undefined || a.host_id === null || a.host_id === -1 ? "system" : a.host_id;
      unwrap(ops(s).setHost(a.room_id, target));
      return { room_id: a.room_id, host_id: target === "system" ? -1 : target };
    }),
    command("room.set_chart", {
      room_id: p.roomId(),
      chart_id: p.userId(),
      chart_name: z.string().min(1).max(200).optional(),
    }, async (a, { services: s }) => {
      unwrap(await ops(s).setChart(a.room_id, a.chart_id, a.chart_name));
      return { room_id: a.room_id, chart_id: a.chart_id, chart_name: room(s, a.room_id).chart?.name ?? null };
    }),
    command(
      "room.kick",
      { room_id: p.roomId(), user_id: p.userId(), reason: z.string().max(200).optional() },
      (a, { services: s }) => {
        unwrap(ops(s).kick(a.room_id, a.user_id));
        // The reason reaches the user as the localized "removed by an administrator" notice.
        if (a.reason) s.core.sendText([a.user_id], { key: "kicked-by-admin", args: { reason: `: ${a.reason}` } });
        return { room_id: a.room_id, user_id: a.user_id };
      },
    ),
    command("room.force_move", { room_id: p.roomId(), user_id: p.userId(), monitor: z.boolean().optional() }, (
      a,
      { services: s },
    ) => {
      unwrap(ops(s).forceMove(a.user_id, a.room_id, a.monitor ?? false));
      return { room_id: a.room_id, user_id: a.user_id, monitor: a.monitor ?? false };
    }),
    command(
      "room.ban",
      { room_id: p.roomId(), user_id: p.userId(), reason: z.string().max(200).optional() },
      (a, { services: s }) => {
        unwrap(ops(s).ban(a.room_id, a.user_id, a.reason ?? ""));
        return { room_id: a.room_id, user_id: a.user_id, reason: a.reason ?? "" };
      },
    ),
    command("room.unban", { room_id: p.roomId(), user_id: p.userId() }, (a, { services: s }) => {
      unwrap(ops(s).unban(a.room_id, a.user_id));
      return { room_id: a.room_id, user_id: a.user_id };
    }),
    command("room.banlist", { room_id: p.roomId() }, (a, { services: s }) => ({
      room_id: a.room_id,
      bans: room(s, a.room_id).bans,
    })),
    command("room.list", { filters: Filters.optional() }, (a, { services: s }) => {
      const rooms = [...s.core.rooms.values()].map(roomSummary).filter((r) => keep(r, a.filters ?? {}));
      return { rooms, total: rooms.length };
    }),
  ];
}
