/**
 * Turns a batch of journal records into a fixed set of statements: records
 * are folded per table and key in sequence order (last write wins, counts
 * add up), then each table gets one multi-row statement (and each telemetry
 * bundle one, unpacked from its journaled JSON). Statement order
 * follows the dependencies between tables (a join before its leave, a round
 * before its results). Called inside the batch's transaction, together with
 * the watermark update that makes the batch apply exactly once.
 *
 * @module
 */

import { fold, type Obj, Plan } from "./fold.ts";
import { SQL as SQL_BY_DIALECT } from "./sql.ts";
import type { SeqEntry } from "../types.ts";
import type { Dialect } from "../../db/types.ts";

/** One statement with its parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** PostgreSQL text and jsonb cannot hold U+0000 (kept on SQLite too, so both store the same) (a client may send it in chat): store U+FFFD instead. */
function noNul(_key: string, value: unknown): unknown {
  return typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value;
}

/** Splits a keyed fold into upserted rows and deleted keys. */
function split<K>(map: Map<K, Obj | null>): [Obj[], K[]] {
  const set: Obj[] = [];
  const del: K[] = [];
  for (const [k, v] of map) v === null ? del.push(k) : set.push(v);
  return [set, del];
}

/**
 * The statements applying `batch` (ascending sequences) in `dialect`, ending
 * with the watermark at `through`.
 */
export function planBatch(batch: readonly SeqEntry[], through: number, now: number, dialect: Dialect): Statement[] {
  const SQL = SQL_BY_DIALECT[dialect];
  const p = new Plan();
  for (const { seq, entry, body } of batch) fold(p, seq, entry, body);
  const out: Statement[] = [];
  const add = (sql: string | readonly string[], rows: readonly unknown[]) => {
    if (!rows.length) return;
    const json = JSON.stringify(rows);
    const params = [json.includes("\\u0000") ? JSON.stringify(rows, noNul) : json];
    for (const text of typeof sql === "string" ? [sql] : sql) out.push({ sql: text, params });
  };
  add(SQL.users, [...p.users.values()]);
  add(SQL.lastSeen, [...p.lastSeen].map(([user_id, at]) => ({ user_id, at })));
  add(SQL.visits, p.visits);
  add(SQL.ipHistory, [...p.ips.values()]);
  if (p.revoked.length) {
    // After this batch's logins: a login and its revocation may share a batch.
    add(SQL.revokeLogins, p.revoked);
    add(SQL.revokedUsers, p.revoked);
    add(SQL.revokedIps, p.revoked);
  }
  add(SQL.playtime, [...p.playtime.values()]);
  add(SQL.events, p.events);
  add(SQL.roomJoins, p.joins);
  add(SQL.roomLeaves, p.leaves);
  add(SQL.rounds, [...p.rounds.values()]);
  if (p.interrupted) out.push({ sql: SQL.interrupted, params: [p.interrupted.before, p.interrupted.at] });
  add(SQL.results(true), [...p.finalResults.values()]);
  add(SQL.results(false), [...p.results.values()]);
  add(SQL.staleResults, [...p.completed].map(([round_uuid, users]) => ({ round_uuid, users })));
  add(SQL.telemetry, p.telemetry);
  for (const [body, seq, count] of p.bundles) out.push({ sql: SQL.telemetryBundle, params: [body, seq - count + 1] });
  add(SQL.segments, p.segments);
  add(SQL.playerData, [...p.playerData.values()]);
  const [snapshots, unsnap] = split(p.snapshots);
  add(SQL.snapshots, snapshots);
  add(SQL.deleteSnapshots, unsnap);
  const [bans, unbans] = split(p.userBans);
  add(SQL.userBans, bans);
  add(SQL.userUnbans, unbans.map(String));
  const [ipBans, ipUnbans] = split(p.ipBans);
  add(SQL.ipBans, ipBans);
  add(SQL.ipUnbans, ipUnbans);
  const [settings, unset] = split(p.settings);
  add(SQL.settings, settings);
  add(SQL.deleteSettings, unset);
  add(SQL.benchmarks, p.benchmarks);
  add(SQL.instances, [...p.instances.values()]);
  const [auth, unauth] = split(p.auth);
  add(SQL.authSet, auth);
  add(SQL.authDelete, unauth);
  if (p.retention) {
    out.push({ sql: SQL.retentionClear, params: [] });
    add(SQL.retention, p.retention);
  }
  out.push({ sql: SQL.watermark, params: [through, now] });
  return out;
}
