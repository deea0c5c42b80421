/**
 * History operations of the `api-call` list (extended.md §2.18; WIT
 * `game-persistence` `query-events`, `query-room-snapshots`): stored domain
 * events and room snapshots, benchmark reports, one round by uuid (spec 3
 * §4.9 `round.data`), and how many players ever logged in. The stored ones
 * need the durable store (`UNAVAILABLE` in memory-only mode); the others
 * answer from memory without it, and say which.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { seesAddresses } from "./actor.ts";
import { type ServerOp, serverOp } from "./server_op.ts";
import { OpsError, unavailable } from "./errors.ts";
import { NO_PERSISTENCE } from "./ops_persist.ts";
import { p } from "./params.ts";
import type { OpsServices } from "./services.ts";
import { memoryRound, storedRound } from "./views.ts";

function store(s: OpsServices) {
  return s.deps.persistence ?? unavailable(NO_PERSISTENCE);
}

function withoutIp(payload: unknown): unknown {
  if (typeof payload !== "object" || payload === null || !("ip" in payload)) return payload;
  const { ip: _ip, ...rest } = payload as Record<string, unknown>;
  return rest;
}

/** The history operations. */
export function historyOps(): ServerOp[] {
  const since = () => z._default(z.int().check(z.gte(0)), 0);
  return [
    serverOp({
      name: "persist.events",
      summary: "stored domain events after a sequence, ascending (filter by kind, room, user)",
      permission: "state.read",
      params: {
        since: since(),
        limit: p.limit(100, 1000),
        kind: z.optional(z.string().check(z.maxLength(64))),
        room_id: z.optional(p.roomId()),
        user_id: z.optional(p.userId()),
      },
      run: async (a, { context: s, actor }) => {
        const rows = await store(s).queries.events({
          since: a.since,
          limit: a.limit,
          ...(a.kind === undefined ? {} : { kind: a.kind }),
          ...(a.room_id === undefined ? {} : { room: a.room_id }),
          ...(a.user_id === undefined ? {} : { user: a.user_id }),
        });
        // `user.online` payloads carry the address: only for those who may see addresses.
        const items = seesAddresses(actor) ? rows : rows.map((r) => ({ ...r, payload: withoutIp(r.payload) }));
        return { items, count: items.length, next_since: items.at(-1)?.seq ?? a.since };
      },
    }),
    serverOp({
      name: "persist.rooms",
      summary: "saved snapshots of persistent rooms after a sequence, ascending",
      permission: "state.read",
      params: { since: since(), limit: p.limit(100, 1000) },
      run: async (a, { context: s }) => {
        const items = await store(s).queries.roomSnapshots(a.since, a.limit);
        return { items, count: items.length, next_since: items.at(-1)?.seq ?? a.since };
      },
    }),
    serverOp({
      name: "benchmark.reports",
      summary: "stored benchmark reports, most recent first",
      permission: "state.read",
      params: { limit: p.limit(20, 1000) },
      run: async (a, { context: s }) => {
        const reports = await store(s).queries.benchmarkReports(a.limit);
        return { reports, count: reports.length };
      },
    }),
    serverOp({
      name: "benchmark.history",
      summary: "stored benchmark runs (id, title, time), most recent first",
      permission: "state.read",
      params: { limit: p.limit(20, 1000) },
      run: async (a, { context: s }) => {
        const runs = (await store(s).queries.benchmarkReports(a.limit)).map((r) => ({
          report_id: r.report_id,
          title: r.title,
          created_at: r.created_at,
        }));
        return { runs, count: runs.length };
      },
    }),
    serverOp({
      name: "benchmark.latest",
      summary: "the most recent stored benchmark report, or null",
      permission: "state.read",
      run: async (_a, { context: s }) => ({ report: (await store(s).queries.benchmarkReports(1))[0] ?? null }),
    }),
    serverOp({
      name: "round.data",
      summary: "one settled round with its results, by uuid (durable store, else the rooms' memory)",
      permission: "state.read",
      params: { round_uuid: p.text(64) },
      run: async (a, { context: s }) => {
        const db = s.deps.persistence;
        if (db) {
          const row = await db.queries.round(a.round_uuid);
          if (!row) throw new OpsError("NOT_FOUND", `no round ${a.round_uuid}`);
          const results = await db.queries.roundResults(row.round_uuid);
          return { source: "persistence", ...storedRound(s.core, row, results.map((r) => r.record)) };
        }
        for (const room of s.core.rooms.values()) {
          const round = room.rounds.find((r) => r.uuid === a.round_uuid);
          if (round) return { source: "memory", ...memoryRound(s.core, room, round) };
        }
        throw new OpsError("NOT_FOUND", `no round ${a.round_uuid} (memory keeps the rounds of open rooms only)`);
      },
    }),
    serverOp({
      name: "auth.unique_visitor_count",
      aliases: ["auth.visited_count"],
      summary: "players who ever logged in (durable store, else since this process started)",
      permission: "state.read",
      run: async (_a, { context: s }) => {
        const db = s.deps.persistence;
        if (db) return { count: await db.queries.totalPlayers(), source: "persistence" };
        return { count: s.core.seenPlayers.size, source: "memory" };
      },
    }),
  ];
}
