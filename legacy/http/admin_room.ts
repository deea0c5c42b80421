/**
 * A room as `/admin/rooms` shows it (spec 3 §4.7; tphira's shape, peers
 * note §2.6, plus hidden, contest and the room's own fields).
 *
 * @module
 */

import type { Room } from "../../src/room/mod.ts";
import type { LegacyContext } from "../context.ts";
import { ORGANISER_ID } from "../ops_contest.ts";
import { stateName } from "../views.ts";

/** A room as `/admin/rooms` shows it (tphira's shape, plus hidden, contest and the room's own fields). */
export function adminRoom(ctx: LegacyContext, r: Room): Record<string, unknown> {
  const core = ctx.core;
  const phase = r.phase;
  const host = r.players.find((p) => p.id === r.hostId);
  const state: Record<string, unknown> = { type: stateName(r) };
  if (phase.kind === "wait") state.ready_users = phase.ready;
  if (phase.kind === "play") {
    state.results_count = phase.results.size;
    state.aborted_count = phase.aborted.length;
    state.finished_users = [...phase.results.keys()];
    state.aborted_users = phase.aborted;
  }
  const contest = ctx.contests.get(r.id);
  return {
    roomid: r.id,
    max_users: r.maxPlayers,
    live: r.live,
    locked: r.locked,
    cycle: r.cycle,
    hidden: r.hidden,
    host: host ? { id: host.id, name: host.name } : null,
    state,
    chart: r.chart ? { id: r.chart.id, name: r.chart.name } : null,
    users: r.players.map((p) => {
      const u = core.users.get(p.id);
      const user: Record<string, unknown> = {
        id: p.id,
        name: p.name,
        connected: (u?.session ?? null) !== null,
        is_host: r.hostId === p.id,
        language: u?.language ?? null,
      };
      if (phase.kind === "play") {
        const record = phase.results.get(p.id);
        user.finished = record !== undefined || phase.aborted.includes(p.id);
        user.aborted = phase.aborted.includes(p.id);
        if (record) user.record_id = record.id;
      }
      return user;
    }),
    monitors: r.monitors.filter((m) => m.id !== ORGANISER_ID).map((m) => ({
      id: m.id,
      name: m.name,
      connected: (core.users.get(m.id)?.session ?? null) !== null,
    })),
    contest: contest
      ? {
        whitelist: [...contest.whitelist].sort((a, b) => a - b),
        manual_start: contest.manualStart,
        auto_disband: contest.autoDisband,
      }
      : null,
  };
}
