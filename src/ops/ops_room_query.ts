/**
 * Operations that read rooms (spec 3 §4.5 `room.list`, `room.info`,
 * `room.history`, ...; §4.9 `rooms.list`, `rooms.by_name`, `rooms.by_user`,
 * `room.uuid`, `room.history`, `room.round_info`). Operators see hidden
 * rooms too. Results are the OpenUDS response data of `docs/openuds.md`.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { type ServerOp, serverOp } from "./server_op.ts";
import { p } from "./params.ts";
import { roomInfo, type RoomSummary, roomSummary } from "./views.ts";

const STATES = ["SelectingChart", "WaitingForReady", "Playing"] as const;

/** `room.list` filters. */
const Filters = z.object({
  state: z.optional(z.enum(STATES, { error: `expected one of ${STATES.join(", ")}` })),
  hidden: z.optional(z.boolean()),
  locked: z.optional(z.boolean()),
  live: z.optional(z.boolean()),
  tournament: z.optional(z.boolean()),
  persistent: z.optional(z.boolean()),
  prefix: z.optional(z.string()),
}, { error: "expected an object of filters" });

function keep(r: RoomSummary, f: z.output<typeof Filters>): boolean {
  return (f.state === undefined || r.state === f.state) && (f.hidden === undefined || r.hidden === f.hidden) &&
    (f.locked === undefined || r.locked === f.locked) && (f.live === undefined || r.live === f.live) &&
    (f.tournament === undefined || r.tournament === f.tournament) &&
    (f.persistent === undefined || r.persistent === f.persistent) &&
    (f.prefix === undefined || r.room_id.startsWith(f.prefix));
}

/** The operations that read rooms. */
export function roomQueryOps(): ServerOp[] {
  return [
    serverOp({
      name: "room.list",
      aliases: ["rooms.list"],
      summary: "every room (hidden ones included), optionally filtered; detail adds members",
      permission: "state.read",
      params: { filters: z.optional(Filters), detail: z.optional(z.boolean()) },
      run: (a, { context: s }) => {
        const all = [...s.core.rooms.values()].filter((r) => keep(roomSummary(r), a.filters ?? {}));
        const rooms = a.detail ? all.map((r) => roomInfo(s.core, r)) : all.map(roomSummary);
        return { rooms, total: rooms.length };
      },
    }),
    serverOp({
      name: "room.info",
      summary: "everything about one room",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => roomInfo(s.core, s.room(a.room_id)),
    }),
    serverOp({
      name: "rooms.by_name",
      summary: "the room of that id (room names are their ids), or null",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => {
        const room = s.core.rooms.get(a.room_id);
        return { room: room ? roomSummary(room) : null };
      },
    }),
    serverOp({
      name: "rooms.by_user",
      summary: "the room a user is in (as player or monitor), or null",
      permission: "state.read",
      params: { user_id: p.userId() },
      run: (a, { context: s }) => {
        const user = s.core.users.get(a.user_id);
        const room = user?.roomId ? s.core.rooms.get(user.roomId) : undefined;
        return { user_id: a.user_id, room: room ? roomSummary(room) : null, monitor: room ? user!.monitor : false };
      },
    }),
    serverOp({
      name: "room.uuid",
      summary: "the room's unique identifier",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => ({ room_id: a.room_id, uuid: s.room(a.room_id).uuid }),
    }),
    serverOp({
      name: "room.get_phira_api_endpoint",
      summary: "the room's game API endpoint override (null = the server's)",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => ({ room_id: a.room_id, endpoint: s.room(a.room_id).apiEndpoint }),
    }),
    serverOp({
      name: "room.history",
      aliases: ["rooms.history"],
      summary: "settled rounds with results, newest first (durable store, else the room's memory)",
      permission: "state.read",
      params: { room_id: p.roomId(), limit: p.limit(100, 1000) },
      run: async (a, { context: s }) => {
        const { source, rounds } = await s.roomRounds(a.room_id, a.limit);
        return { room_id: a.room_id, source, rounds };
      },
    }),
    serverOp({
      name: "room.rounds",
      summary: "settled rounds, one summary each, newest first",
      permission: "state.read",
      params: { room_id: p.roomId(), limit: p.limit(100, 1000) },
      run: async (a, { context: s }) => {
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
      },
    }),
    serverOp({
      name: "room.round",
      aliases: ["room.round_info"],
      summary: "one round's results, by uuid or by position (1 = latest)",
      permission: "state.read",
      params: { room_id: p.roomId(), round_id: p.text(64) },
      run: async (a, { context: s }) => {
        const { source, round } = await s.round(a.room_id, a.round_id);
        return { source, ...round };
      },
    }),
    serverOp({
      name: "room.chat_history",
      aliases: ["rooms.chat_history"],
      summary: "the chat lines the room keeps",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => {
        const r = s.room(a.room_id);
        const name = (id: number) => r.players.find((m) => m.id === id)?.name ?? s.core.users.get(id)?.name ?? null;
        const messages = r.chat.map((c) => ({
          user_id: c.user,
          user_name: name(c.user),
          content: c.content,
          time: c.time,
        }));
        return { room_id: a.room_id, messages, count: messages.length };
      },
    }),
    serverOp({
      name: "room.banlist",
      summary: "users banned from the room",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => ({ room_id: a.room_id, bans: s.room(a.room_id).bans }),
    }),
  ];
}
