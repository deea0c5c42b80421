/**
 * Operations on the durable store (spec 3 §4.5 `persist.touches`,
 * `persist.judges`; §4.9 `player.touches`, `player.judges`; extended.md
 * §2.18 `persist.playtime`, `persist.top_playtime`, `playtime.leaderboard`;
 * §4.2 `wal inspect`, `dead-letter list|replay`). Telemetry batches and
 * journal tools need the store (`UNAVAILABLE` in memory-only mode);
 * playtime answers from memory without it.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { type ServerOp, serverOp } from "./server_op.ts";
import { unavailable } from "./errors.ts";
import { p } from "./params.ts";
import type { OpsServices } from "./services.ts";

/** Said by store operations in memory-only mode. */
export const NO_PERSISTENCE = "persistence is not enabled: the server runs in memory-only mode (no journal)";

function store(s: OpsServices) {
  return s.deps.persistence ?? unavailable(NO_PERSISTENCE);
}

/** Batches of touches or judges, ascending by sequence (spec 3 §4.5); `next_since` continues after the last. */
async function telemetry(
  s: OpsServices,
  kind: "touches" | "judges",
  a: { since: number; limit: number; round_uuid?: string | undefined; player_id?: number | undefined },
) {
  const rows = await store(s).queries.telemetry(kind, {
    since: a.since,
    limit: a.limit,
    ...(a.round_uuid === undefined ? {} : { round: a.round_uuid }),
    ...(a.player_id === undefined ? {} : { player: a.player_id }),
  });
  const items = rows.map((r) => ({
    sequence: r.seq,
    room_id: r.room_id,
    round_uuid: r.round_uuid,
    player_id: r.player_id,
    count: r.item_count,
    items: r.items,
    first_at: r.first_at,
    created_at: r.created_at,
  }));
  return { items, count: items.length, next_since: items.at(-1)?.sequence ?? a.since };
}

/** The store operations. */
export function persistOps(): ServerOp[] {
  const since = () => z._default(z.int().check(z.gte(0)), 0);
  const batches = (kind: "touches" | "judges") => [
    serverOp({
      name: `persist.${kind}`,
      summary: `stored ${kind} batches, ascending by sequence`,
      permission: "state.read",
      params: {
        since: since(),
        limit: p.limit(100, 500),
        round_uuid: z.optional(z.string()),
        player_id: z.optional(p.userId()),
      },
      run: (a, { context: s }) => telemetry(s, kind, a),
    }),
    serverOp({
      name: `player.${kind}`,
      summary: `one player's stored ${kind} batches, ascending by sequence`,
      permission: "state.read",
      params: { player_id: p.userId(), since: since(), limit: p.limit(100, 500), round_uuid: z.optional(z.string()) },
      run: (a, { context: s }) => telemetry(s, kind, a),
    }),
  ];
  return [
    ...batches("touches"),
    ...batches("judges"),
    serverOp({
      name: "persist.playtime",
      summary: "a user's playtime in seconds (durable store, else since this process started)",
      permission: "state.read",
      params: { user_id: p.userId() },
      run: async (a, { context: s }) => ({ user_id: a.user_id, seconds: await s.playtimeSecs(a.user_id) }),
    }),
    serverOp({
      name: "persist.top_playtime",
      aliases: ["playtime.leaderboard"],
      summary: "the users with the most playtime",
      permission: "state.read",
      params: { limit: p.limit(10, 100) },
      run: async (a, { context: s }) => ({ entries: await s.topPlaytime(a.limit) }),
    }),
    serverOp({
      name: "wal.inspect",
      summary: "the journal: files, sequence range, records not yet applied",
      permission: "operator",
      params: { limit: p.limit(20, 1000) },
      run: (a, { context: s }) => store(s).walInspect(a.limit),
    }),
    serverOp({
      name: "dead_letter.list",
      summary: "journal records the database refused",
      permission: "operator",
      params: { limit: p.limit(50, 1000) },
      run: async (a, { context: s }) => {
        const items = await store(s).deadLetters(a.limit);
        return { items, count: items.length };
      },
    }),
    serverOp({
      name: "dead_letter.replay",
      summary: "apply the dead letters again",
      permission: "operator",
      mutates: true,
      run: (_a, { context: s }) => store(s).replayDeadLetters(),
    }),
  ];
}
