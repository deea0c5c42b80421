/**
 * Folding a batch of journal records per table and key, in sequence order
 * (last write wins, counts add up), for `plan.ts` to turn into one
 * statement per table. Room history pairs joins with leaves inside the batch;
 * a round's results follow its completion, which is authoritative.
 *
 * Over 300 lines: one fold per record type, each a few lines, all writing
 * the same {@link Plan}; split by type they would only share that plan.
 *
 * @module
 */

import type { RecordData } from "../../protocol/mod.ts";
import type { EventEntry, JournalEntry, TelemetryBatch } from "../types.ts";
import { foldSegments } from "./fold_segments.ts";

/** A row about to be written, as a JSON object. */
export type Obj = Record<string, unknown>;

/** Per-table folds of one batch. */
export class Plan {
  users = new Map<number, Obj>();
  lastSeen = new Map<number, number>();
  visits: Obj[] = [];
  ips = new Map<string, Obj>();
  /** Logins taken back (applied after the batch's logins, so a login and its revocation may share a batch). */
  revoked: Obj[] = [];
  playtime = new Map<number, Obj>();
  events: Obj[] = [];
  joins: Obj[] = [];
  openJoins = new Map<string, Obj>();
  leaves: Obj[] = [];
  rounds = new Map<string, Obj>();
  finalResults = new Map<string, Obj>();
  results = new Map<string, Obj>();
  completed = new Map<string, number[]>();
  interrupted: { before: number; at: number } | null = null;
  telemetry: Obj[] = [];
  /** Telemetry bundles whose rows the database unpacks from the journaled JSON: [body, last seq, batches]. */
  bundles: [body: string, seq: number, count: number][] = [];
  /** `telemetry_segments` rows (`fold_segments.ts`). */
  segments: Obj[] = [];
  playerData = new Map<string, Obj>();
  snapshots = new Map<string, Obj | null>();
  userBans = new Map<number, Obj | null>();
  ipBans = new Map<string, Obj | null>();
  settings = new Map<string, Obj | null>();
  benchmarks: Obj[] = [];
  instances = new Map<string, Obj>();
  auth = new Map<string, Obj | null>();
  retention: Obj[] | null = null;
}

function resultRow(round: string, room: string, r: RecordData, at: number, seq: number): Obj {
  return {
    round_uuid: round,
    user_id: r.player,
    room_id: room,
    record_id: r.id,
    score: r.score,
    accuracy: r.accuracy,
    perfect: r.perfect,
    good: r.good,
    bad: r.bad,
    miss: r.miss,
    max_combo: r.max_combo,
    full_combo: r.full_combo,
    std: r.std ?? null,
    std_score: r.std_score ?? null,
    created_at: at,
    seq,
  };
}

/** One touch or judge batch: its `telemetry_batches` row (unless unpacked in SQL) and per-player round data. */
function foldTelemetry(p: Plan, seq: number, batch: TelemetryBatch, row: boolean): void {
  const n = batch.items.length;
  if (row) {
    p.telemetry.push({
      seq,
      kind: batch.kind,
      room_id: batch.room,
      round_uuid: batch.round,
      player_id: batch.user,
      item_count: n,
      items: batch.items,
      first_at: batch.first_at,
      created_at: batch.last_at,
    });
  }
  if (batch.round === null) return;
  const key = `${batch.round}|${batch.user}`;
  let d = p.playerData.get(key);
  if (!d) {
    d = {
      round_uuid: batch.round,
      player_id: batch.user,
      room_id: batch.room,
      touch_items: 0,
      judge_items: 0,
      touch_batches: 0,
      judge_batches: 0,
      first_at: batch.first_at,
      last_at: batch.last_at,
    };
    p.playerData.set(key, d);
  }
  if (batch.kind === "touches") {
    d.touch_items = (d.touch_items as number) + n;
    d.touch_batches = (d.touch_batches as number) + 1;
  } else {
    d.judge_items = (d.judge_items as number) + n;
    d.judge_batches = (d.judge_batches as number) + 1;
  }
  d.first_at = Math.min(d.first_at as number, batch.first_at);
  d.last_at = Math.max(d.last_at as number, batch.last_at);
}

function foldEvent(p: Plan, seq: number, { e }: EventEntry): void {
  const scoped = e as { room?: string; user?: number; hidden?: boolean };
  p.events.push({
    seq,
    kind: e.kind,
    room_id: scoped.room ?? null,
    user_id: typeof scoped.user === "number" ? scoped.user : null,
    hidden: scoped.hidden ?? false,
    payload: e,
    created_at: e.time,
  });
  const join = (user: number, monitor: boolean) => {
    const row = {
      seq,
      user_id: user,
      room_id: scoped.room,
      room_uuid: (e as { uuid: string }).uuid,
      monitor,
      joined_at: e.time,
      left_at: null,
      leave_reason: null,
    };
    p.openJoins.set(`${user}|${row.room_uuid}`, row);
    p.joins.push(row);
  };
  switch (e.kind) {
    case "room.created":
      // The creator's membership is part of room.created (no separate room.joined).
      if (e.by !== null) join(e.by, false);
      break;
    case "room.joined":
      join(e.user, e.monitor);
      break;
    case "room.left": {
      const key = `${e.user}|${e.uuid}`;
      const open = p.openJoins.get(key);
      p.openJoins.delete(key);
      if (open) Object.assign(open, { left_at: e.time, leave_reason: e.reason });
      else p.leaves.push({ user_id: e.user, room_uuid: e.uuid, at: e.time, reason: e.reason });
      break;
    }
    case "user.offline":
      p.lastSeen.set(e.user, Math.max(p.lastSeen.get(e.user) ?? 0, e.time));
      break;
    case "round.started":
      p.rounds.set(e.round, {
        round_uuid: e.round,
        room_id: e.room,
        room_uuid: e.uuid,
        chart_id: e.chart,
        chart_name: e.chartName,
        players: e.players,
        aborted: [],
        started_at: e.time,
        finished_at: null,
        seq,
      });
      break;
    case "round.scored":
      if (e.round !== null && !p.results.has(`${e.round}|${e.user}`) && !p.completed.has(e.round)) {
        p.results.set(`${e.round}|${e.user}`, resultRow(e.round, e.room, { ...e.record, player: e.user }, e.time, seq));
      }
      break;
    case "round.completed": {
      const started = p.rounds.get(e.round);
      const players = [...new Set([...e.data.records.map((r) => r.player), ...e.aborted])];
      p.rounds.set(e.round, {
        round_uuid: e.round,
        room_id: e.room,
        room_uuid: e.uuid,
        chart_id: e.chart,
        chart_name: e.chartName,
        players: started?.players ?? players,
        aborted: e.aborted,
        started_at: e.startedAt,
        finished_at: e.time,
        seq: started?.seq ?? seq,
      });
      for (const r of e.data.records) {
        p.finalResults.set(`${e.round}|${r.player}`, resultRow(e.round, e.room, r, e.time, seq));
      }
      for (const key of p.results.keys()) if (key.startsWith(`${e.round}|`)) p.results.delete(key);
      p.completed.set(e.round, e.data.records.map((r) => r.player));
      break;
    }
  }
}

/** Folds one record into `p`. */
export function fold(p: Plan, seq: number, entry: JournalEntry, body?: string | null): void {
  switch (entry.t) {
    case "login": {
      const prev = p.users.get(entry.user);
      p.users.set(entry.user, {
        user_id: entry.user,
        name: entry.name,
        language: entry.language,
        player: entry.category === "normal" || prev?.player === true,
        login_count: ((prev?.login_count as number | undefined) ?? 0) + 1,
        first_seen_at: Math.min((prev?.first_seen_at as number | undefined) ?? entry.at, entry.at),
        last_seen_at: Math.max((prev?.last_seen_at as number | undefined) ?? entry.at, entry.at),
        last_ip: entry.ip,
      });
      p.visits.push({
        seq,
        instance_id: entry.instance,
        session_id: entry.session,
        user_id: entry.user,
        category: entry.category,
        ip: entry.ip,
        connected_at: entry.at,
      });
      const key = `${entry.user}|${entry.ip}`;
      const ip = p.ips.get(key);
      if (ip) Object.assign(ip, { last_seen_at: entry.at, use_count: (ip.use_count as number) + 1 });
      else {p.ips.set(key, {
          user_id: entry.user,
          ip: entry.ip,
          first_seen_at: entry.at,
          last_seen_at: entry.at,
          use_count: 1,
        });}
      break;
    }
    case "login.revoked":
      p.revoked.push({ instance_id: entry.instance, session_id: entry.session, user_id: entry.user, ip: entry.ip });
      break;
    case "event":
      return foldEvent(p, seq, entry);
    case "playtime":
      for (const [user, ms] of entry.deltas) {
        const prev = p.playtime.get(user);
        p.playtime.set(user, { user_id: user, ms: ((prev?.ms as number | undefined) ?? 0) + ms, at: entry.at });
      }
      break;
    case "telemetry":
      foldTelemetry(p, seq, entry, true);
      break;
    case "telemetry.bundle": {
      // A bundle of k batches took sequences seq-k+1 .. seq, one per batch (types.ts).
      const k = entry.batches.length;
      // Its JSON as journaled is handed to the database whole (no second serialization here), unless
      // it holds an escaped NUL, which jsonb refuses: those rows go the ordinary way (apply_plan.ts).
      const raw = body !== undefined && body !== null && k > 0 && !body.includes("\\u0000");
      if (raw) p.bundles.push([body, seq, k]);
      for (let i = 0; i < k; i++) foldTelemetry(p, seq - k + 1 + i, entry.batches[i]!, !raw);
      break;
    }
    case "telemetry.segments":
      foldSegments(p, seq, entry);
      break;
    case "snapshot":
      p.snapshots.set(
        entry.room,
        entry.payload === null ? null : { room_id: entry.room, payload: entry.payload, updated_at: entry.at, seq },
      );
      break;
    case "ban.user":
      p.userBans.set(entry.user, { user_id: entry.user, reason: entry.reason, banned_at: entry.at });
      break;
    case "unban.user":
      p.userBans.set(entry.user, null);
      break;
    case "ban.ip":
      p.ipBans.set(entry.ip, { ip: entry.ip, reason: entry.reason, banned_at: entry.at });
      break;
    case "unban.ip":
      p.ipBans.set(entry.ip, null);
      break;
    case "setting":
      p.settings.set(
        entry.key,
        entry.value === null ? null : { key: entry.key, value: entry.value, updated_at: entry.at },
      );
      break;
    case "benchmark":
      p.benchmarks.push({ seq, report_id: entry.id, title: entry.title, report: entry.report, created_at: entry.at });
      break;
    case "instance": {
      const prev = p.instances.get(entry.id);
      p.instances.set(entry.id, {
        instance_id: entry.id,
        pid: entry.pid,
        host: entry.host,
        started_at: entry.started_at,
        last_alive_at: Math.max((prev?.last_alive_at as number | undefined) ?? 0, entry.at),
        stopped_at: entry.stopped ? entry.at : (prev?.stopped_at ?? null),
      });
      break;
    }
    case "auth":
      for (const [hash, user, name, language, cachedAt] of entry.set) {
        p.auth.set(hash, { token_hash: hash, user_id: user, name, language, cached_at: cachedAt });
      }
      for (const hash of entry.del) p.auth.set(hash, null);
      break;
    case "retention":
      p.retention = entry.policies.map((r) => ({
        scope: r.table,
        time_col: r.time_col,
        days: r.days,
        max_rows: r.max_rows,
        updated_at: entry.at,
      }));
      break;
    case "rounds.interrupted":
      p.interrupted = { before: entry.before, at: entry.at };
      break;
    default:
      throw new TypeError(`Cannot apply a journal record: unknown type "${(entry as { t?: unknown }).t}"`);
  }
}
