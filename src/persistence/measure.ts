/**
 * Measurements behind BENCHMARKS.md "Persistence". Run:
 *
 *   deno run -A src/persistence/measure.ts journal [records]          journaled records per second
 *   deno run -A src/persistence/measure.ts scan [records]             start-up scan (recovery) of a journal
 *   deno run -A src/persistence/measure.ts recovery [records] [url]   replay time (SQLite, or PostgreSQL at url)
 *   deno run -A src/persistence/measure.ts idle [url]                 idle RSS of `main.ts start` (cold and warm)
 *
 * @module
 */

import { defaultConfig } from "../config/mod.ts";
import { ManualClock, SystemClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { Journal } from "./journal/mod.ts";
import { openPersistence } from "./persistence.ts";
import type { JournalEntry } from "./types.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();

/** A realistic mix: room events, chat, logins (about 250 bytes of JSON each). */
function sample(i: number, now: number): JournalEntry {
  const room = `room-${i % 500}`;
  const uuid = `00000000-0000-4000-8000-${(i % 500).toString(16).padStart(12, "0")}`;
  const user = 1000 + (i % 5000);
  switch (i % 4) {
    case 0:
      return {
        t: "event",
        e: { kind: "room.joined", room, uuid, hidden: false, user, name: `Player${user}`, monitor: false, time: now },
      };
    case 1:
      return {
        t: "event",
        e: { kind: "chat.message", room, uuid, hidden: false, user, content: `message number ${i}`, time: now },
      };
    case 2:
      return {
        t: "event",
        e: {
          kind: "room.left",
          room,
          uuid,
          hidden: false,
          user,
          name: `Player${user}`,
          monitor: false,
          reason: "leave",
          time: now,
        },
      };
    default:
      return {
        t: "login",
        user,
        name: `Player${user}`,
        language: "en-US",
        ip: `10.0.${i % 250}.1`,
        session: i,
        category: "normal",
        at: now,
        instance: "bench",
      };
  }
}

async function journalRate(n: number): Promise<void> {
  const dir = await Deno.makeTempDir();
  const j = await Journal.open({ dir, clock: new SystemClock(), log });
  const now = Date.now();
  let t = performance.now();
  for (let i = 0; i < n; i++) {
    j.append(sample(i, now));
    if (i % 1000 === 999) {
      j.requestSync();
      await new Promise((r) => setTimeout(r, 0));
    }
  }
  await j.sync();
  const batched = n / ((performance.now() - t) / 1000);
  // Gated writes (logins): each waits for its fsync; 64 in flight share group commits.
  const gated = Math.min(n, 20_000);
  t = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 64 }, async () => {
    while (next < gated) {
      j.append(sample(next++ * 4 + 3, now));
      await j.sync();
    }
  }));
  const gatedRate = gated / ((performance.now() - t) / 1000);
  console.log(JSON.stringify({
    records: n,
    batched_fsync_records_per_s: Math.round(batched),
    gated_records_per_s: Math.round(gatedRate),
    fsyncs: j.counters.fsyncs,
    bytes_per_record: Math.round(j.counters.bytes_written / j.counters.appended),
  }));
  await j.close();
  await Deno.remove(dir, { recursive: true });
}

/** Time to open (scan and checksum every record of) a journal of `n` records, three times. */
async function scanRate(n: number): Promise<void> {
  const dir = await Deno.makeTempDir();
  const clock = new ManualClock();
  const j = await Journal.open({ dir, clock, log });
  const now = Date.now();
  for (let i = 0; i < n; i++) j.append(sample(i, now));
  await j.close();
  for (let run = 0; run < 3; run++) {
    const t = performance.now();
    const again = await Journal.open({ dir, clock, log });
    const ms = performance.now() - t;
    console.log(JSON.stringify({ records: n, bytes: again.bytes, scan_ms: Math.round(ms), rss_mb: rssMb() }));
    await again.close();
  }
  await Deno.remove(dir, { recursive: true });
}

function rssMb(): number {
  return Math.round(Deno.memoryUsage().rss / 1048576);
}

async function recovery(n: number, url: string | null): Promise<void> {
  const dir = await Deno.makeTempDir();
  const config = { ...defaultConfig(), data_dir: dir, database_url: url, startup_recovery_timeout: 86400 };
  const first = await openPersistence({ config, clock: new ManualClock(), log });
  await first.stop();
  const j = await Journal.open({ dir: `${dir}/journal`, clock: new ManualClock(), log });
  const now = Date.now();
  for (let i = 0; i < n; i++) j.append(sample(i, now));
  await j.close();
  const t = performance.now();
  const p = await openPersistence({ config, clock: new ManualClock(), log });
  const ms = performance.now() - t;
  const [events] = await p.store.db.query("SELECT COUNT(*) AS n FROM events");
  console.log(JSON.stringify({
    backend: url ? "postgres" : "sqlite",
    records: n,
    recovery_ms: Math.round(ms),
    records_per_s: Math.round(n / (ms / 1000)),
    events: events?.n,
    rss_mb: Math.round(Deno.memoryUsage().rss / 1048576),
  }));
  await p.stop();
  if (url) await p.store.db.exec("SELECT 1").catch(() => {});
  await Deno.remove(dir, { recursive: true });
}

async function idle(url: string | null): Promise<void> {
  const dir = await Deno.makeTempDir();
  const root = new URL("../..", import.meta.url).pathname;
  for (const run of ["cold", "warm"]) {
    const args = [
      "run",
      "-A",
      "main.ts",
      "start",
      "--port",
      String(20000 + Math.floor(Math.random() * 20000)),
      "--http-port",
      "0",
      "--data-dir",
      dir,
    ];
    const env: Record<string, string> = url ? { PM_DATABASE_URL: url } : {};
    const quiet = Deno.env.get("MEASURE_VERBOSE") ? "inherit" : "null";
    const child = new Deno.Command(Deno.execPath(), { args, cwd: root, env, stdout: quiet, stderr: quiet }).spawn();
    await new Promise((r) => setTimeout(r, 15_000));
    const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    child.kill("SIGTERM");
    await child.status;
    console.log(JSON.stringify({ backend: url ? "postgres" : "sqlite", run, idle_rss_mb: Math.round(rss) }));
  }
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) {
  const [what = "journal", a, b] = Deno.args;
  if (what === "journal") await journalRate(Number(a ?? 200_000));
  else if (what === "scan") await scanRate(Number(a ?? 1_000_000));
  else if (what === "recovery") await recovery(Number(a ?? 1_000_000), b ?? null);
  else if (what === "idle") await idle(a ?? null);
  else console.error("usage: measure.ts journal|scan|recovery|idle \u2026");
}
