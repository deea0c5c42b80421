/**
 * The one store test suite, run on every backend (issue 5 "two backends
 * that pass one shared test suite"): `store_sqlite_test.ts` and
 * `store_postgres_test.ts` call {@link storeSuite} with their database.
 *
 * Over 300 lines: it is one conformance suite, run as a whole against each
 * backend; its steps share one database and build on each other.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { RecordData } from "../../protocol/mod.ts";
import { LogHub } from "../../util/log.ts";
import { loadAuthCache, loadBans, loadSettings } from "../queries/loaders.ts";
import { migrate, MIGRATIONS, SCHEMA_VERSION } from "../backends/migrations.ts";
import { Queries } from "../queries/queries.ts";
import { RETENTION_TABLES, runRetention } from "../retention/retention.ts";
import type { SqlDb } from "../backends/sql_db.ts";
import { Store } from "./store.ts";
import { SEGMENT_CASES } from "./store_suite_segments_test_util.ts";
import type { JournalEntry, SeqEntry, StoredEvent, TelemetryBatch } from "../types.ts";

const log = new LogHub({ level: "debug", sink: () => {} }).logger();
const T0 = Date.UTC(2026, 0, 1);
const scope = { room: "abc", uuid: "room-uuid-1", hidden: false };

/** A record as the dev upstream would return it. */
export function record(player: number, id: number, score = 900000, std: number = 0.5): RecordData {
  return {
    id,
    player,
    score,
    perfect: 100,
    good: 5,
    bad: 1,
    miss: 2,
    max_combo: 80,
    accuracy: 0.97,
    full_combo: false,
    std,
    std_score: 12.5,
  };
}

const ev = (e: StoredEvent): JournalEntry => ({ t: "event", e });
const login = (
  user: number,
  at: number,
  ip = "10.0.0.1",
  category = "normal" as const,
  session = at,
): JournalEntry => ({
  t: "login",
  user,
  name: `P${user}`,
  language: "en-US",
  ip,
  session,
  category,
  at,
  instance: "inst-1",
});

/** Applies entries as consecutive sequences starting after the current watermark. */
async function apply(store: Store, entries: JournalEntry[], now = T0): Promise<SeqEntry[]> {
  const start = await store.appliedSeq();
  const batch = entries.map((entry, i) => ({ seq: start + i + 1, entry }));
  await store.applyBatch(batch, batch.at(-1)!.seq, now);
  return batch;
}

async function count(db: SqlDb, table: string, where = "true"): Promise<number> {
  const [row] = await db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`);
  assert.equal(typeof row?.n, "number", "int8 comes back as a number");
  return row!.n as number;
}

type Case = (db: SqlDb, store: Store, q: Queries) => Promise<void>;

/** Drops every table (an empty database, as a first start sees it). */
async function resetDb(db: SqlDb): Promise<void> {
  if (db.backend === "postgres") return await db.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  const tables = await db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'");
  for (const { name } of tables) await db.exec(`DROP TABLE "${name}"`);
}

/** The query plan of `sql` as text (tables are empty: PostgreSQL is told to avoid sequential scans). */
async function queryPlan(db: SqlDb, sql: string): Promise<string> {
  if (db.backend === "sqlite") {
    return (await db.query(`EXPLAIN QUERY PLAN ${sql}`)).map((r) => String(r.detail)).join("\n");
  }
  return await db.transaction(async (tx) => {
    await tx.exec("SET LOCAL enable_seqscan = off");
    return (await tx.query(`EXPLAIN ${sql}`)).map((r) => String(Object.values(r)[0])).join("\n");
  });
}

/** `table.col` of every single-column index on a time column (`(col NULLS FIRST)` on PostgreSQL). */
async function indexedColumns(db: SqlDb): Promise<string[]> {
  if (db.backend === "sqlite") {
    const rows = await db.query(
      `SELECT m.tbl_name AS t, i.name AS c FROM sqlite_master m, pragma_index_info(m.name) i
       WHERE m.type = 'index' AND m.sql IS NOT NULL
         AND (SELECT COUNT(*) FROM pragma_index_info(m.name)) = 1`,
    );
    return rows.map((r) => `${r.t}.${r.c}`);
  }
  return (await db.query("SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public'"))
    .flatMap((r) => {
      const col = /\((\w+) NULLS FIRST\)$/.exec(String(r.indexdef))?.[1];
      return col ? [`${r.tablename}.${col}`] : [];
    });
}

const CASES: [string, Case][] = [
  ["migrations record the schema version and are idempotent", async (db) => {
    const again = await migrate(db, log, T0);
    assert.deepEqual(again, { from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    const rows = await db.query("SELECT version, description FROM schema_version ORDER BY version");
    assert.deepEqual(rows, MIGRATIONS.map((m) => ({ version: m.version, description: m.description })));
    assert.deepEqual(rows.slice(0, 3).map((r) => r.version), [1, 2, 3]);
  }],
  ["a database of schema version 1 is migrated with its rows kept", async (db, store) => {
    await resetDb(db);
    await migrate(db, log, T0, MIGRATIONS.slice(0, 1));
    await db.query("INSERT INTO events (seq, kind, hidden, payload, created_at) VALUES (1, 'x', false, '{}', $1)", [
      T0,
    ]);
    await db.query("UPDATE journal_state SET applied_seq = 1");
    assert.deepEqual(await migrate(db, log, T0), { from: 1, to: SCHEMA_VERSION });
    assert.equal(await count(db, "events"), 1);
    assert.equal(await store.appliedSeq(), 1);
    assert.equal(await store.journalId(), null, "no journal is bound yet");
  }],
  ["every retention time column a rule may pick has an index the retention queries use", async (db) => {
    for (const [table, t] of Object.entries(RETENTION_TABLES)) {
      for (const col of t.cols) {
        // The same queries as runRetention's chunks (retention/retention.ts).
        const id = db.backend === "postgres" ? "ctid" : "rowid";
        const plans = [
          await queryPlan(db, `SELECT ${id} FROM ${table} WHERE ${col} < 5 LIMIT 10`),
          await queryPlan(db, `SELECT ${id} FROM ${table} ORDER BY ${col} ASC NULLS FIRST LIMIT 10`),
        ];
        if (db.backend === "sqlite") {
          assert.match(
            plans[0]!,
            new RegExp(`USING (COVERING )?INDEX \\w+ \\(${col}<\\?\\)`),
            `${table}.${col}: ${plans[0]}`,
          );
          assert.match(plans[1]!, /USING (COVERING )?INDEX/, `${table}.${col}: ${plans[1]}`);
          assert.doesNotMatch(plans[1]!, /TEMP B-TREE/, `${table}.${col}: oldest first straight from the index`);
          continue;
        }
        for (const p of plans) assert.match(p, /Index (Only )?Scan|Bitmap Index Scan/, `${table}.${col}: ${p}`);
        assert.match(
          plans[0]!,
          new RegExp(`Index Cond: \\(${col} < `),
          `${table}.${col}: the cutoff is an index bound`,
        );
        assert.doesNotMatch(plans[1]!, /Sort/, `${table}.${col}: oldest first straight from the index`);
      }
    }
  }],
  ["a database of schema version 3 gains the indexes on the other retention time columns, rows kept", async (db) => {
    await resetDb(db);
    await migrate(db, log, T0, MIGRATIONS.slice(0, 3));
    await db.query(
      "INSERT INTO user_room_history (seq, user_id, room_id, room_uuid, monitor, joined_at) VALUES (1, 7, 'r', 'u', false, $1)",
      [T0],
    );
    const indexed = () => indexedColumns(db);
    const others = Object.entries(RETENTION_TABLES).flatMap(([table, t]) =>
      t.cols.slice(1).map((c) => `${table}.${c}`)
    );
    assert.equal(others.length, 6);
    const before = await indexed();
    assert.deepEqual(others.filter((c) => before.includes(c)), [], "version 3 indexes the default columns only");
    // Up to version 4 only: later versions add tables with indexes of their own (telemetry_segments).
    assert.deepEqual(await migrate(db, log, T0, MIGRATIONS.slice(0, 4)), { from: 3, to: 4 });
    const after = await indexed();
    assert.deepEqual(after.filter((c) => !before.includes(c)).sort(), others.sort(), "one index per other column");
    assert.deepEqual(await db.query("SELECT seq, left_at FROM user_room_history"), [{ seq: 1, left_at: null }]);
  }],
  ["a schema newer than the code fails closed", async (db) => {
    await db.query("INSERT INTO schema_version VALUES (999, 0, 'from the future')");
    await assert.rejects(migrate(db, log, T0), (e: Error & { code?: string }) => {
      assert.equal(e.code, "schema_newer");
      assert.match(
        e.message,
        new RegExp(
          `^Cannot open the database: its schema version 999 is newer than this server supports \\(${SCHEMA_VERSION}\\)`,
        ),
      );
      return true;
    });
  }],
  ["a failing migration fails closed and keeps nothing of it", async (db) => {
    const next = SCHEMA_VERSION + 1;
    const broken = [...MIGRATIONS, {
      version: next,
      description: "broken",
      sql: "CREATE TABLE half (id INT); SELECT no_such_fn();",
    }];
    await assert.rejects(
      migrate(db, log, T0, broken),
      new RegExp(`Cannot migrate the database to schema version ${next} \\(broken\\): .*no_such_fn`),
    );
    assert.equal(await count(db, "schema_version"), MIGRATIONS.length);
    const tables = db.backend === "postgres" ? ["pg_tables", "tablename"] : ["sqlite_master", "name"];
    assert.equal(await count(db, tables[0]!, `${tables[1]} = 'half'`), 0);
  }],
  ["logins make users, visits and IP history; a batch applied twice changes nothing", async (db, store, q) => {
    const batch = await apply(store, [
      login(100, T0, "10.0.0.1"),
      login(100, T0 + 10, "10.0.0.2"),
      login(200, T0 + 20),
      login(300, T0 + 30, "10.0.0.3", "console" as never),
      login(100, T0 + 40, "10.0.0.1"),
    ]);
    await store.applyBatch(batch, batch.at(-1)!.seq, T0);
    const u = await q.user(100);
    assert.deepEqual(u, {
      user_id: 100,
      name: "P100",
      language: "en-US",
      player: true,
      login_count: 3,
      first_seen_at: T0,
      last_seen_at: T0 + 40,
      last_ip: "10.0.0.1",
    });
    assert.equal(await count(db, "visits"), 5);
    assert.equal(await q.totalPlayers(), 2, "console logins are not players");
    assert.deepEqual(await q.allPlayerIds(), [100, 200]);
    assert.deepEqual(await q.ipHistory(100), [
      { ip: "10.0.0.1", first_seen_at: T0, last_seen_at: T0 + 40, use_count: 2 },
      { ip: "10.0.0.2", first_seen_at: T0 + 10, last_seen_at: T0 + 10, use_count: 1 },
    ]);
    await apply(store, [
      login(100, T0 + 50),
      ev({ kind: "user.offline", user: 100, name: "P100", seq: 0, time: T0 + 99 } as never),
    ]);
    assert.equal((await q.user(100))!.login_count, 4);
    assert.equal((await q.user(100))!.last_seen_at, T0 + 99);
  }],
  ["revoked logins are taken back once: counts, addresses, users left without a login", async (db, store, q) => {
    const revoke = (user: number, at: number, ip = "10.0.0.1"): JournalEntry => ({
      t: "login.revoked",
      user,
      ip,
      session: at,
      instance: "inst-1",
      reason: "auth",
      at: at + 1,
    });
    await apply(store, [login(100, T0, "10.0.0.1"), login(100, T0 + 10, "10.0.0.2"), login(200, T0 + 20)]);
    // A revocation twice in one batch, and a login revoked in the batch that journaled it.
    await apply(store, [revoke(100, T0 + 10, "10.0.0.2"), revoke(100, T0 + 10, "10.0.0.2"), revoke(200, T0 + 20)]);
    await apply(store, [login(300, T0 + 30), revoke(300, T0 + 30)]);
    await apply(store, [revoke(100, T0 + 10, "10.0.0.2")]); // Already taken back: nothing changes.
    assert.equal((await q.user(100))!.login_count, 1);
    assert.deepEqual((await q.ipHistory(100)).map((r) => [r.ip, r.use_count]), [["10.0.0.1", 1]]);
    assert.equal(await q.user(200), null, "a user without any login is gone");
    assert.equal(await q.user(300), null);
    assert.deepEqual(await q.ipHistory(200), []);
    assert.equal(await count(db, "visits"), 1);
  }],
  ["room and round events make history, rounds and results", async (db, store, q) => {
    const joined = (user: number, time: number) =>
      ev({ kind: "room.joined", ...scope, user, name: `P${user}`, monitor: false, time });
    const left = (user: number, time: number) =>
      ev({ kind: "room.left", ...scope, user, name: `P${user}`, monitor: false, reason: "leave", time });
    await apply(store, [
      joined(100, T0),
      joined(200, T0 + 1),
      joined(100, T0 + 2), // A rejoin after a lost leave: both stays are kept.
      left(200, T0 + 3),
      joined(200, T0 + 4),
      ev({
        kind: "round.started",
        ...scope,
        round: "r1",
        chart: 7,
        chartName: "Lucky Seven",
        players: [100, 200],
        time: T0 + 5,
      }),
      ev({
        kind: "round.scored",
        ...scope,
        round: "r1",
        chart: 7,
        user: 200,
        record: record(200, 200001),
        time: T0 + 6,
      }),
    ]);
    await apply(store, [
      ev({
        kind: "round.scored",
        ...scope,
        round: "r1",
        chart: 7,
        user: 100,
        record: record(100, 100001, 1000000),
        time: T0 + 7,
      }),
      ev({
        kind: "round.scored",
        ...scope,
        round: "r1",
        chart: 7,
        user: 100,
        record: record(100, 100002, 1),
        time: T0 + 8,
      }),
      ev({
        kind: "round.completed",
        ...scope,
        round: "r1",
        chart: 7,
        chartName: "Lucky Seven",
        data: { chart: 7, records: [record(100, 100001, 1000000)] },
        aborted: [200],
        startedAt: T0 + 5,
        time: T0 + 9,
      }),
      ev({ kind: "chat.message", ...scope, user: 100, content: "gg", time: T0 + 10 }),
      left(200, T0 + 11),
    ]);
    const rounds = await q.roundsByRoom("abc");
    assert.deepEqual(rounds, [{
      round_uuid: "r1",
      room_id: "abc",
      room_uuid: "room-uuid-1",
      chart_id: 7,
      chart_name: "Lucky Seven",
      players: [100, 200],
      aborted: [200],
      started_at: T0 + 5,
      finished_at: T0 + 9,
      interrupted: false,
    }]);
    const results = await q.roundResults("r1");
    assert.deepEqual(
      results.map((r) => r.record),
      [record(100, 100001, 1000000)],
      "first upload kept, aborted user's result removed",
    );
    const hist = await q.userRoomHistory(200);
    assert.deepEqual(hist.map((h) => [h.joined_at, h.left_at, h.leave_reason]), [[T0 + 4, T0 + 11, "leave"], [
      T0 + 1,
      T0 + 3,
      "leave",
    ]]);
    assert.equal((await q.userRoomHistory(100)).length, 2);
    const events = await q.events({});
    assert.equal(events.length, 12);
    assert.deepEqual(events.map((e) => e.seq), [...events.map((e) => e.seq)].sort((a, b) => a - b));
    assert.deepEqual((await q.events({ kind: "chat.message" })).map((e) => e.payload), [
      { kind: "chat.message", ...scope, user: 100, content: "gg", time: T0 + 10 },
    ]);
    assert.equal((await q.events({ user: 200, kind: "room.left" })).length, 2);
    assert.equal((await q.events({ since: events[9]!.seq })).length, 2);
    assert.equal((await q.events({ limit: 3 })).length, 3);
    assert.equal((await q.events({ room: "elsewhere" })).length, 0);
    assert.equal(await count(db, "events", "hidden"), 0);
  }],
  ["touch and judge batches, per-player round data, the 500 limit", async (db, store, q) => {
    const batch = (
      kind: "touches" | "judges",
      user: number,
      n: number,
      round: string | null,
      at: number,
    ): JournalEntry => ({
      t: "telemetry",
      kind,
      room: "abc",
      round,
      user,
      items: Array.from({ length: n }, (_, i) => ({ time: i / 10, i })),
      first_at: at,
      last_at: at + 400,
    });
    await apply(store, [
      batch("touches", 100, 256, "r1", T0),
      batch("judges", 100, 3, "r1", T0 + 1),
      batch("touches", 100, 10, "r1", T0 + 500),
    ]);
    await apply(store, [batch("touches", 200, 5, "r1", T0 + 2), batch("touches", 100, 1, null, T0 + 3)]);
    const touches = await q.telemetry("touches", {});
    assert.deepEqual(touches.map((b) => [b.player_id, b.item_count, b.round_uuid]), [
      [100, 256, "r1"],
      [100, 10, "r1"],
      [200, 5, "r1"],
      [100, 1, null],
    ]);
    assert.deepEqual(touches[2]!.items, [0, 1, 2, 3, 4].map((i) => ({ time: i / 10, i })));
    assert.equal((await q.telemetry("touches", { player: 100, round: "r1" })).length, 2);
    assert.equal((await q.telemetry("touches", { since: touches[1]!.seq, limit: 1 })).length, 1);
    assert.equal((await q.telemetry("judges", { limit: 100000 })).length, 1);
    const [d] = await db.query("SELECT * FROM round_player_data WHERE player_id = 100");
    assert.deepEqual([d!.touch_items, d!.touch_batches, d!.judge_items, d!.judge_batches, d!.first_at, d!.last_at], [
      266,
      2,
      3,
      1,
      T0,
      T0 + 900,
    ]);
    const many = Array.from({ length: 600 }, (_, i) => batch("judges", 300, 1, "r2", T0 + i));
    await apply(store, many);
    assert.equal((await q.telemetry("judges", { limit: 1000 })).length, 500, "persist.judges answers at most 500");
  }],
  ["telemetry bundles: one sequence per batch, rows as from single records, unpacked from the JSON or not", async (
    db,
    store,
    q,
  ) => {
    const batch = (kind: "touches" | "judges", user: number, n: number, round: string | null): TelemetryBatch => ({
      kind,
      room: "abc",
      round,
      user,
      items: Array.from({ length: n }, (_, i) => ({ time: i / 3, i })),
      first_at: T0 + user,
      last_at: T0 + user + 400,
    });
    const bundle = (batches: TelemetryBatch[]): JournalEntry => ({ t: "telemetry.bundle", batches });
    const b1 = bundle([batch("touches", 100, 3, "r1"), batch("judges", 100, 2, "r1"), batch("touches", 200, 1, null)]);
    const b2 = bundle([batch("touches", 100, 4, "r1"), batch("judges", 300, 1, "r2")]);
    // Sequences: a setting (1), b1 takes 2..4, b2 takes 5..6; b2's JSON is at hand, b1's is not.
    const start = await store.appliedSeq();
    const batchOf: SeqEntry[] = [
      { seq: start + 1, entry: { t: "setting", key: "k", value: 1, at: T0 } },
      { seq: start + 4, entry: b1 },
      { seq: start + 6, entry: b2, body: JSON.stringify(b2) },
    ];
    await store.applyBatch(batchOf, start + 6, T0);
    await store.applyBatch(batchOf, start + 6, T0); // Applied again: nothing changes.
    const rows = await db.query(
      "SELECT seq, kind, player_id, round_uuid, item_count, first_at, created_at FROM telemetry_batches ORDER BY seq",
    );
    assert.deepEqual(rows, [
      {
        seq: start + 2,
        kind: "touches",
        player_id: 100,
        round_uuid: "r1",
        item_count: 3,
        first_at: T0 + 100,
        created_at: T0 + 500,
      },
      {
        seq: start + 3,
        kind: "judges",
        player_id: 100,
        round_uuid: "r1",
        item_count: 2,
        first_at: T0 + 100,
        created_at: T0 + 500,
      },
      {
        seq: start + 4,
        kind: "touches",
        player_id: 200,
        round_uuid: null,
        item_count: 1,
        first_at: T0 + 200,
        created_at: T0 + 600,
      },
      {
        seq: start + 5,
        kind: "touches",
        player_id: 100,
        round_uuid: "r1",
        item_count: 4,
        first_at: T0 + 100,
        created_at: T0 + 500,
      },
      {
        seq: start + 6,
        kind: "judges",
        player_id: 300,
        round_uuid: "r2",
        item_count: 1,
        first_at: T0 + 300,
        created_at: T0 + 700,
      },
    ]);
    const touches = await q.telemetry("touches", { player: 100 });
    assert.deepEqual(touches.map((t) => t.items), [
      batch("touches", 100, 3, "r1").items,
      batch("touches", 100, 4, "r1").items,
    ]);
    assert.equal(touches[1]!.room_id, "abc");
    const [d] = await db.query("SELECT * FROM round_player_data WHERE player_id = 100");
    assert.deepEqual([d!.touch_items, d!.touch_batches, d!.judge_items, d!.judge_batches], [7, 2, 2, 1]);
    // A NUL in a string cannot go through jsonb as escaped JSON: such a bundle takes the ordinary path.
    const nul = bundle([{ ...batch("judges", 400, 1, "r3"), room: "a\0b" }]);
    await store.applyBatch([{ seq: start + 7, entry: nul, body: JSON.stringify(nul) }], start + 7, T0);
    assert.deepEqual((await q.telemetry("judges", { player: 400 })).map((t) => t.room_id), ["a\uFFFDb"]);
    assert.equal(await store.appliedSeq(), start + 7);
  }],
  ["playtime adds up per user; top playtime", async (_db, store, q) => {
    await apply(store, [login(100, T0), login(200, T0), { t: "playtime", at: T0, deltas: [[100, 1000], [200, 5000]] }]);
    await apply(store, [{ t: "playtime", at: T0 + 60000, deltas: [[100, 7000]] }, {
      t: "playtime",
      at: T0 + 1,
      deltas: [[100, 1]],
    }]);
    assert.equal(await q.playtime(100), 8001);
    assert.equal(await q.playtime(999), 0);
    assert.deepEqual(await q.topPlaytime(10), [
      { user_id: 100, name: "P100", total_ms: 8001 },
      { user_id: 200, name: "P200", total_ms: 5000 },
    ]);
  }],
  ["snapshots, bans, settings and the auth cache: last write wins, deletes delete", async (db, store, q) => {
    await apply(store, [
      { t: "snapshot", room: "keep", payload: { v: 1 }, at: T0 },
      { t: "snapshot", room: "keep", payload: { v: 2 }, at: T0 + 1 },
      { t: "snapshot", room: "gone", payload: { v: 1 }, at: T0 },
      { t: "ban.user", user: 5, reason: "cheating", at: T0 },
      { t: "ban.user", user: 6, reason: "spam", at: T0 },
      { t: "ban.ip", ip: "10.9.9.9", reason: "abuse", at: T0 },
      { t: "setting", key: "persistent_rooms", value: ["keep"], at: T0 },
      { t: "setting", key: "gone", value: 1, at: T0 },
      { t: "auth", set: [["h1", 100, "P100", "en-US", T0], ["h2", 200, "P200", "zh-CN", T0 + 5]], del: [] },
    ]);
    await apply(store, [
      { t: "snapshot", room: "gone", payload: null, at: T0 + 2 },
      { t: "unban.user", user: 6, at: T0 + 1 },
      { t: "setting", key: "gone", value: null, at: T0 + 1 },
      { t: "auth", set: [["h3", 300, "P300", "en-US", T0 + 1]], del: ["h1"] },
    ]);
    assert.deepEqual((await q.roomSnapshots()).map((s) => [s.room_id, s.payload]), [["keep", { v: 2 }]]);
    assert.deepEqual(await loadBans(db), {
      users: [{ user_id: 5, reason: "cheating", banned_at: T0 }],
      ips: [{ ip: "10.9.9.9", reason: "abuse", banned_at: T0 }],
    });
    assert.deepEqual([...await loadSettings(db)], [["persistent_rooms", ["keep"]]]);
    assert.deepEqual((await loadAuthCache(db, 10)).map(([h]) => h), ["h3", "h2"], "oldest first");
    assert.deepEqual(
      (await loadAuthCache(db, 1)).map(([h, id]) => [h, id.language]),
      [["h2", "zh-CN"]],
      "the newest are kept",
    );
  }],
  ["instances, benchmark reports, retention policies and interrupted rounds", async (db, store, q) => {
    const inst = (at: number, stopped = false): JournalEntry => ({
      t: "instance",
      id: "i1",
      pid: 42,
      host: "h",
      started_at: T0,
      at,
      stopped,
    });
    await apply(store, [
      inst(T0),
      inst(T0 + 30000),
      ev({ kind: "round.started", ...scope, round: "old", chart: 1, chartName: "c", players: [1], time: T0 }),
      { t: "benchmark", id: "b1", title: "fixed 10 rooms", report: { rooms: 10 }, at: T0 },
      { t: "retention", policies: [{ table: "events", time_col: "created_at", days: 30, max_rows: null }], at: T0 },
    ]);
    await apply(store, [inst(T0 + 60000, true), { t: "rounds.interrupted", before: T0 + 1, at: T0 + 70000 }]);
    const [i] = await db.query("SELECT * FROM server_instances");
    assert.deepEqual([i!.pid, i!.last_alive_at, i!.stopped_at], [42, T0 + 60000, T0 + 60000]);
    assert.deepEqual((await q.benchmarkReports()).map((b) => [b.report_id, b.title, b.report]), [[
      "b1",
      "fixed 10 rooms",
      { rooms: 10 },
    ]]);
    assert.deepEqual(await db.query("SELECT scope, time_col, days, max_rows FROM retention_policies"), [
      { scope: "events", time_col: "created_at", days: 30, max_rows: null },
    ]);
    const round = await q.round("old");
    assert.deepEqual([round!.interrupted, round!.finished_at], [true, T0 + 70000]);
  }],
  ["dead letters: listed with their error, replayed once", async (db, store) => {
    const body = JSON.stringify({ t: "setting", key: "late", value: 1, at: T0 });
    await store.deadLetter(7, body, "boom", 3, T0);
    await store.deadLetter(8, "{not json", "cannot parse", 1, T0);
    assert.equal(await store.appliedSeq(), 8, "the watermark moves past dead letters");
    assert.deepEqual((await store.deadLetters()).map((d) => [d.seq, d.error, d.attempts]), [[7, "boom", 3], [
      8,
      "cannot parse",
      1,
    ]]);
    const [first, second] = await store.deadLetters();
    const ok = await store.replayDeadLetter(first!, T0);
    const bad = await store.replayDeadLetter(second!, T0);
    assert.deepEqual(ok, { seq: 7, ok: true });
    assert.equal(bad.ok, false);
    assert.equal(await store.deadLetterCount(), 1);
    assert.deepEqual([...await loadSettings(db)], [["late", 1]]);
    assert.equal((await store.deadLetters())[0]!.attempts, 2);
  }],
  ["retention deletes old rows and cuts an oversized table to 80 %", async (db, store) => {
    const day = 86_400_000;
    const chat = (i: number, time: number) => ev({ kind: "chat.message", ...scope, user: 1, content: `m${i}`, time });
    await apply(store, Array.from({ length: 40 }, (_, i) => chat(i, T0 - (i < 10 ? 40 * day : 0) + i)));
    const now = T0 + 1000;
    const r1 = await runRetention(
      db,
      [{ table: "events", time_col: "created_at", days: 30, max_rows: null }],
      now,
      log,
      4,
    );
    assert.deepEqual(r1, [{ table: "events", by_age: 10, by_rows: 0 }]);
    const r2 = await runRetention(
      db,
      [{ table: "events", time_col: "created_at", days: null, max_rows: 20 }],
      now,
      log,
      4,
    );
    assert.deepEqual(r2, [{ table: "events", by_age: 0, by_rows: 14 }]);
    const left = await db.query("SELECT payload->>'content' AS c FROM events ORDER BY created_at");
    assert.deepEqual(left.map((r) => r.c), Array.from({ length: 16 }, (_, i) => `m${i + 24}`), "the oldest go first");
    assert.deepEqual(
      await runRetention(db, [{ table: "users", time_col: "x", days: 1, max_rows: null }], now, log),
      [],
    );
    assert.ok(!("users" in RETENTION_TABLES));
  }],
];

/** Registers the suite for one backend; `open` gives a database with an empty `public` schema. */
export function storeSuite(
  name: string,
  open: (() => Promise<{ db: SqlDb; close: () => Promise<void> }>) | null,
  why = "",
): void {
  Deno.test({
    name: open ? `store suite on ${name}` : `store suite on ${name} (skipped: ${why})`,
    ignore: open === null,
    async fn(t) {
      const { db, close } = await open!();
      try {
        for (const [label, fn] of [...CASES, ...SEGMENT_CASES]) {
          await t.step(label, async () => {
            await resetDb(db);
            await migrate(db, log, T0);
            await fn(db, new Store(db), new Queries(db));
          });
        }
      } finally {
        await close();
      }
    },
  });
}
