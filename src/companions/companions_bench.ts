/**
 * Costs of the companion services' hot paths (BENCHMARKS.md "Companion
 * services"): parsing and applying one game-server log line of each dialect
 * (the room service must keep up with a busy server's log), one poll's
 * records for 100 rooms of 4 players with nothing changed (the api service
 * runs this every second), and one Argon2id check with the default
 * parameters (every login and role password).
 */
import { SqliteDb } from "../db/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { parseLogLine } from "./log_lines.ts";
import { argon2Hasher } from "./passwords.ts";
import type { PolledRoom } from "./room_shapes.ts";
import { RoomTracker } from "./room_tracker.ts";
import { StatsPoller } from "./stats_poller.ts";
import { migrateStats, StatsStore } from "./stats_store.ts";

const OURS = "2026-11-25T18:27:31.345Z INFO  user joined room room=abc user=200 name=Bob";
const UPDATE = "2026-11-25T18:27:31.411Z INFO  room updated room=abc state=WaitingForReady";
const OFFICIAL =
  '\x1b[2m2025-08-01T12:00:03.000000Z\x1b[0m \x1b[34mDEBUG\x1b[0m \x1b[2mphira_mp_server::room\x1b[0m\x1b[2m:\x1b[0m broadcast Message(JoinRoom { user: 200, name: "Bob" }) \x1b[3mroom\x1b[0m\x1b[2m=\x1b[0m"abc"';
const NOISE = "2026-11-25T18:27:31.322Z INFO  user authenticated user=100 session=1 reconnect=false";

const tracker = new RoomTracker();
tracker.apply({ t: "create", room: "abc", user: 100 }, 0);
const feed = (line: string) => {
  const { at, events } = parseLogLine(line);
  for (const ev of events) tracker.apply(ev, at ?? 0);
};

Deno.bench("log line: this project's join, parsed and applied", () => feed(OURS));
Deno.bench("log line: this project's room update, parsed and applied", () => feed(UPDATE));
Deno.bench("log line: the official server's coloured broadcast, parsed and applied", () => feed(OFFICIAL));
Deno.bench("log line: an unrelated line of this project, skipped", () => feed(NOISE));

const db = SqliteDb.open(":memory:");
await migrateStats(db);
const poller = new StatsPoller({
  url: "http://unused.invalid/",
  intervalMs: 1000,
  timeoutMs: 1000,
  sampleIntervalSecs: 60,
  retentionDays: 1,
  store: new StatsStore(db),
  clock: new ManualClock(),
  log: memoryLogHub().logger(),
});
const rooms: PolledRoom[] = Array.from({ length: 100 }, (_, i) => ({
  name: `room-${i}`,
  host: i * 4,
  users: [i * 4, i * 4 + 1, i * 4 + 2, i * 4 + 3],
  state: "selecting_chart",
  chart: null,
  playing: null,
}));
await poller.apply(rooms, 0);
let now = 0;
Deno.bench("poll: 100 rooms of 4 players, nothing changed", async () => {
  await poller.apply(rooms, now += 1000);
});

const hasher = argon2Hasher();
const hash = await hasher.hash("correct horse battery");
Deno.bench("argon2id verify, default parameters (19 MiB, t=2)", async () => {
  await hasher.verify(hash, "correct horse battery");
});
