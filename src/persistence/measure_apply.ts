/**
 * Store throughput behind BENCHMARKS.md "Persistence / Embedded store":
 * journal records applied straight through {@link Store.applyBatch} in
 * batches as the apply worker cuts them (256 records, and on SQLite at most
 * {@link SQLITE_APPLY_BATCH_BYTES} of JSON), timed per batch.
 * On SQLite a batch runs synchronously, so its time is also how long it
 * blocks the event loop. Run:
 *
 *   deno run -A src/persistence/measure_apply.ts [sqlite|pglite|<postgres url>] [rounds] [telemetry]
 *
 * A round is what the server journals for one room of 8 players: 8 joins,
 * the start, 8 results, the completion, 4 chat messages and 8 leaves
 * (30 records). With `telemetry`, each round also carries its players'
 * touches and judges as the batcher bundles them (spec 3 §8: 2 batches per
 * player and second of a 120 s chart, 10 items each, 16 bundles per round).
 *
 * @module
 */

import { LogHub } from "../util/log.ts";
import { Store } from "./apply/store.ts";
import { migrate } from "./backends/migrations.ts";
import { PostgresDb } from "./backends/postgres_db.ts";
import type { SqlDb } from "./backends/sql_db.ts";
import { SQLITE_APPLY_BATCH_BYTES, SqliteStoreDb } from "./backends/sqlite_store_db.ts";
import type { JournalEntry, SeqEntry, TelemetryBatch } from "./types.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const T0 = Date.UTC(2026, 0, 1);
const BATCH = 256;

function record(player: number, id: number) {
  return {
    id,
    player,
    score: 900_000 + id % 1000,
    perfect: 100,
    good: 5,
    bad: 1,
    miss: 2,
    max_combo: 80,
    accuracy: 0.97,
    full_combo: false,
    std: 0.5,
    std_score: 12.5,
  };
}

/** The records of round `r` (see the module doc). */
function round(r: number, telemetry: boolean): JournalEntry[] {
  const room = `room-${r % 300}`;
  const scope = { room, uuid: `uuid-${room}`, hidden: false };
  const players = Array.from({ length: 8 }, (_, i) => 1000 + (r * 8 + i) % 20_000);
  const at = T0 + r * 1000;
  const round = `round-${r}`;
  const ev = (e: Record<string, unknown>): JournalEntry => ({ t: "event", e: { ...scope, ...e } as never });
  const out: JournalEntry[] = players.map((user) =>
    ev({ kind: "room.joined", user, name: `P${user}`, monitor: false, time: at })
  );
  out.push(ev({ kind: "round.started", round, chart: 7, chartName: "Seven", players, time: at + 1 }));
  if (telemetry) {
    // 16 bundles, each with 15 s of every player's touches and judges (2 batches per second each).
    for (let b = 0; b < 16; b++) {
      const batches: TelemetryBatch[] = [];
      for (const user of players) {
        for (let s = 0; s < 15; s++) {
          for (const kind of ["touches", "judges"] as const) {
            const items = Array.from({ length: 10 }, (_, k) => ({ time: s + k / 10, x: 0.25 * k, y: -0.5 + k / 20 }));
            batches.push({ kind, room, round, user, items, first_at: at + s * 1000, last_at: at + s * 1000 + 450 });
          }
        }
      }
      out.push({ t: "telemetry.bundle", batches });
    }
  }
  for (const user of players) {
    out.push(ev({ kind: "round.scored", round, chart: 7, user, record: record(user, r * 8 + user), time: at + 2 }));
  }
  out.push(ev({
    kind: "round.completed",
    round,
    chart: 7,
    chartName: "Seven",
    data: { chart: 7, records: players.map((u) => record(u, r * 8 + u)) },
    aborted: [],
    startedAt: at + 1,
    time: at + 3,
  }));
  for (let c = 0; c < 4; c++) {
    out.push(ev({ kind: "chat.message", user: players[c], content: `gg ${c}`, time: at + 4 }));
  }
  for (const user of players) {
    out.push(ev({ kind: "room.left", user, name: `P${user}`, monitor: false, reason: "leave", time: at + 5 }));
  }
  return out;
}

async function open(which: string, dir: string): Promise<SqlDb> {
  if (which === "sqlite") return SqliteStoreDb.open(`${dir}/chorus.sqlite`);
  if (which === "pglite") return await (await import("./backends/pglite_db.ts")).PgliteDb.open(`${dir}/pglite`);
  return await PostgresDb.open(which, log);
}

const rssMb = () => Math.round(Deno.memoryUsage().rss / 1048576);
const gcRssMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return rssMb();
};

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

if (import.meta.main) {
  const [which = "sqlite", n = "2000", tele] = Deno.args;
  const rounds = Number(n);
  const dir = await Deno.makeTempDir();
  const rssBefore = rssMb();
  const db = await open(which, dir);
  if (db.backend === "postgres" && which !== "pglite") {
    await db.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  }
  await migrate(db, log, T0);
  const store = new Store(db);
  const rssOpen = rssMb();
  // Records are made round by round, so the process holds only the store and the batch in flight.
  let pending: JournalEntry[] = [];
  let made = 0;
  let total = 0;
  const next = (): JournalEntry | undefined => {
    if (pending.length === 0 && made < rounds) pending = round(made++, tele === "telemetry").reverse();
    if (pending.length) total++;
    return pending.pop();
  };
  const times: number[] = [];
  let seq = 0;
  const started = performance.now();
  const maxBytes = db.backend === "sqlite" && which === "sqlite" ? SQLITE_APPLY_BATCH_BYTES : 8 * 1024 * 1024;
  for (let done = false; !done;) {
    const batch: SeqEntry[] = [];
    let bytes = 0;
    while (batch.length < BATCH && bytes < maxBytes) {
      const entry = next();
      if (!entry) {
        done = true;
        break;
      }
      bytes += JSON.stringify(entry).length;
      // A bundle of k batches takes k sequences (types.ts TelemetryBundleEntry).
      seq += entry.t === "telemetry.bundle" ? entry.batches.length : 1;
      batch.push({ seq, entry });
    }
    if (batch.length === 0) break;
    const t = performance.now();
    await store.applyBatch(batch, seq, T0);
    times.push(performance.now() - t);
  }
  const t = performance.now();
  await db.checkpoint();
  const checkpointMs = performance.now() - t;
  const s = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({
    backend: which.startsWith("postgres") ? "postgres" : which,
    telemetry: tele === "telemetry",
    rounds,
    records: total,
    rounds_per_s: Math.round(rounds / s),
    records_per_s: Math.round(total / s),
    batch_ms: { p50: +pct(times, 0.5).toFixed(2), p99: +pct(times, 0.99).toFixed(2), max: +times.at(-1)!.toFixed(2) },
    checkpoint_ms: +checkpointMs.toFixed(1),
    // RSS before opening, once open and migrated, and after every round was applied (after a GC with --expose-gc).
    rss_mb: { before: rssBefore, open: rssOpen, after: gcRssMb() },
    heap_mb: {
      total: Math.round(Deno.memoryUsage().heapTotal / 1048576),
      used: Math.round(Deno.memoryUsage().heapUsed / 1048576),
    },
  }));
  await db.close();
  await Deno.remove(dir, { recursive: true });
}
