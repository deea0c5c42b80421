/**
 * The game server on durable persistence (issue 5): what players do is in
 * the store after a restart; logins are refused when they cannot be made
 * durable; a bad data_dir fails with a clear error; snapshots, telemetry
 * batches, dead letters and the journal tools work end to end.
 */
import assert from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import { faultyJournalFiles } from "../src/persistence/journal/faults_test_util.ts";
import { openPersistence } from "../src/persistence/mod.ts";
import { ClientCommand, encodeValue } from "../src/protocol/mod.ts";
import { parseReplay } from "../src/replay/mod.ts";
import { devToken } from "../src/upstream/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";
import { dataDirs, startStack } from "./support/persistence_stack.ts";
import { SEGMENT_LIMITS } from "../src/persistence/telemetry/mod.ts";

const dirs = dataDirs();
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("players, rounds, chat, playtime, bans and the auth cache survive a restart", async () => {
  const dataDir = await dirs.fresh();
  const clock = new ManualClock();
  // Clients here do not ping: keep them connected while the clock runs a minute.
  const config = { heartbeat_timeout: 3600 };
  const s = await startStack({ dataDir, clock, config });
  const alice = await s.login(100);
  const bob = await s.login(200);
  await alice.createRoom("r1");
  await bob.joinRoom("r1");
  await alice.chat("hello there");
  await alice.selectChart(7);
  await alice.requestStart();
  await bob.ready();
  await alice.played(100001);
  await bob.played(200001);
  s.server.core.bans.banUser({ user_id: 300, reason: "cheating", banned_at: clock.now() });
  s.clock.advance(60_000); // The periodic playtime flush.
  await s.persistence.flush();
  assert.ok(await s.persistence.queries.playtime(100) >= 60_000, "flushed to the store after 60 s");
  await s.close();

  const again = await startStack({ dataDir, clock, config });
  const p = again.persistence;
  const q = p.queries;
  assert.deepEqual([...again.server.core.seenPlayers].sort(), [100, 200], "total_players survives");
  assert.equal(await q.totalPlayers(), 2);
  assert.equal(again.server.core.authCache.size, 2, "token hashes restored");
  assert.equal(again.server.core.bans.userBan(300)?.reason, "cheating");
  const [round] = await q.roundsByRoom("r1");
  assert.ok(round?.finished_at, "the round finished");
  assert.deepEqual((await q.roundResults(round!.round_uuid)).map((r) => [r.record.player, r.record.id]).sort(), [
    [100, 100001],
    [200, 200001],
  ]);
  assert.equal((await q.user(100))?.login_count, 1);
  assert.equal((await q.events({ kind: "chat.message" }))[0]?.payload && 1, 1);
  assert.deepEqual((await q.userRoomHistory(200)).map((h) => h.room_id), ["r1"]);
  assert.ok((await q.playtime(100)) >= 60_000, "playtime flushed every 60 s and at shutdown");
  const kinds = new Set((await q.events({ limit: 1000 })).map((e) => e.kind));
  for (const k of ["user.online", "room.created", "room.joined", "round.started", "round.scored", "round.completed"]) {
    assert.ok(kinds.has(k), `${k} recorded`);
  }
  // The ban holds after the restart.
  const mallory = await again.connect();
  await assert.rejects(mallory.authenticate(devToken(300)), /cheating/);
  const status = p.status();
  assert.equal(status.backend, "sqlite");
  assert.equal(status.dead_letters, 0);
  assert.equal(status.counters.journal_write_failures_total, 0);
  await again.close();
});

Deno.test("a login that cannot be journaled is refused; events still reach the store", async () => {
  const dataDir = await dirs.fresh();
  const { faults, open: openJournalFile } = faultyJournalFiles();
  const s = await startStack({ dataDir, openJournalFile });
  const alice = await s.login(100);
  await alice.createRoom("r1");
  faults.failWrites = true;
  const bob = await s.connect();
  await assert.rejects(
    bob.authenticate(devToken(200)),
    /The server cannot save logins: its disk is full\. Please tell the server's operator/,
  );
  assert.ok(s.logs.history().some((r) => r.msg === "login could not be made durable; refusing it"));
  await alice.chat("while the disk is full");
  assert.ok(s.persistence.status().counters.journal_write_failures_total >= 1);
  assert.match(s.persistence.status().last_error ?? "", /No space left on device/);
  faults.failWrites = false;
  await s.persistence.flush();
  const chats = await s.persistence.queries.events({ kind: "chat.message" });
  assert.deepEqual(chats.map((e) => (e.payload as { content: string }).content), ["while the disk is full"]);
  assert.equal(await s.persistence.queries.totalPlayers(), 1, "the refused login left no trace");
  await s.close();
});

Deno.test("an unwritable data_dir fails with a clear error", async () => {
  const file = await Deno.makeTempFile();
  const log = new LogHub({ level: "error", sink: () => {} }).logger();
  await assert.rejects(
    openPersistence({ config: { ...defaultConfig(), data_dir: `${file}/data` }, clock: new ManualClock(), log }),
    (e: Error) => {
      assert.match(e.message, /^Cannot use data_dir ".*\/data": it is not a writable directory \(.*\)/);
      return true;
    },
  );
  await Deno.remove(file);
});

Deno.test("room snapshots are saved after a 500 ms debounce and loaded after a restart", async () => {
  const dataDir = await dirs.fresh();
  const clock = new ManualClock();
  const s = await startStack({ dataDir, clock });
  const p = s.persistence;
  p.saveRoomSnapshot("lobby", { v: 1 });
  s.clock.advance(300);
  p.saveRoomSnapshot("lobby", { v: 2 });
  p.saveRoomSnapshot("gone", { v: 1 });
  s.clock.advance(499);
  await p.flush();
  assert.deepEqual(await p.loadRoomSnapshots(), [], "nothing before the debounce ends");
  s.clock.advance(1);
  await p.flush();
  assert.deepEqual((await p.loadRoomSnapshots()).map((r) => [r.room_id, r.payload]).sort(), [["gone", { v: 1 }], [
    "lobby",
    { v: 2 },
  ]]);
  p.deleteRoomSnapshot("gone");
  p.saveRoomSnapshot("lobby", { v: 3 }); // Flushed at shutdown.
  await s.close();
  const again = await startStack({ dataDir, clock });
  assert.deepEqual((await again.persistence.loadRoomSnapshots()).map((r) => [r.room_id, r.payload]), [["lobby", {
    v: 3,
  }]]);
  await again.close();
});

Deno.test("touches and judges are stored as their wire bytes in the round's .phirarec file, indexed per segment", async () => {
  const dataDir = await dirs.fresh();
  const s = await startStack({ dataDir });
  const scope = { room: "r", uuid: "u", hidden: false, user: 100, round: "round-1" };
  s.bus.publish({ kind: "round.started", ...scope, chart: 7, chartName: "c", players: [100] });
  const frames = Array.from(
    { length: 300 },
    (_, i) => ({ time: i, points: [[0, { x: 0.5, y: 0.25 }]] as [number, { x: number; y: number }][] }),
  );
  const judges = [{ time: 1, line_id: 1, note_id: 2, judgement: "Perfect" as const }];
  const touchRaw = encodeValue(ClientCommand, { type: "Touches", frames });
  const judgeRaw = encodeValue(ClientCommand, { type: "Judges", judges });
  s.bus.publish({ kind: "touches", ...scope, frames, raw: touchRaw });
  s.bus.publish({ kind: "judges", ...scope, judges, raw: judgeRaw });
  await s.persistence.flush();
  const q = s.persistence.queries;
  assert.deepEqual(await q.telemetry("touches"), [], "held until the 500 ms tick");
  s.clock.advance(500);
  await s.persistence.flush();
  const [name] = (await Array.fromAsync(Deno.readDir(`${dataDir}/record/100/7`))).map((e) => e.name);
  assert.equal(
    (await Deno.stat(`${dataDir}/record/100/7/${name}`)).size,
    14 + touchRaw.length + judgeRaw.length + 8,
    "written on the tick",
  );
  assert.deepEqual(await q.telemetry("touches"), [], "indexed every 5 s");
  s.clock.advance(SEGMENT_LIMITS.indexMs - 500);
  await s.persistence.flush();
  const [touches] = await q.telemetry("touches");
  const [judged] = await q.telemetry("judges", { round: "round-1", player: 100 });
  assert.equal(touches?.item_count, 300);
  assert.deepEqual(touches?.items, frames.map((f) => ({ ...f, points: f.points.map(([id, p]) => [id, p]) })));
  assert.deepEqual(judged?.items, judges);
  assert.equal(touches?.seq, judged?.seq, "one segment holds both kinds");
  // The file is a replay: header (chart 7, user 100), then the payloads exactly as received.
  const files = (await Array.fromAsync(Deno.readDir(`${dataDir}/record/100/7`))).map((e) => e.name);
  assert.equal(files.length, 1);
  const bytes = await Deno.readFile(`${dataDir}/record/100/7/${files[0]}`);
  const parsed = parseReplay(bytes);
  assert.deepEqual(parsed.header, { chartId: 7, userId: 100, recordId: 0 });
  assert.deepEqual(parsed.entries, [touchRaw, judgeRaw]);
  assert.deepEqual(s.persistence.status().telemetry, {
    open_files: 1,
    pending_bytes: 0,
    messages: 2,
    bytes: touchRaw.length + judgeRaw.length + 8,
    segments: 1,
    records: 1,
    dropped: 0,
    failed_files: 0,
    round_max_bytes: 16 * 1024 * 1024,
    dropped_items: 0,
    dropped_bytes: 0,
    capped_rounds: 0,
  });
  await s.close();
});

Deno.test("retention removes stored telemetry files together with their index rows", async () => {
  const dataDir = await dirs.fresh();
  const s = await startStack({ dataDir, config: { touch_judge_retention_days: 1 } });
  const scope = { room: "r", uuid: "u", hidden: false, user: 100 };
  const frames = [{ time: 1, points: [[0, { x: 0.5, y: 0.25 }]] as [number, { x: number; y: number }][] }];
  const raw = encodeValue(ClientCommand, { type: "Touches", frames });
  s.bus.publish({ kind: "round.started", ...scope, round: "old", chart: 1, chartName: "c", players: [100] });
  s.bus.publish({ kind: "touches", ...scope, round: "old", frames, raw });
  s.bus.publish(
    {
      kind: "round.completed",
      ...scope,
      round: "old",
      chart: 1,
      chartName: "c",
      data: {},
      aborted: [],
      startedAt: 0,
    } as never,
  );
  await s.persistence.flush();
  s.clock.advance(2 * 86_400_000);
  s.bus.publish({ kind: "round.started", ...scope, round: "new", chart: 2, chartName: "c", players: [100] });
  s.bus.publish({ kind: "touches", ...scope, round: "new", frames, raw });
  s.clock.advance(SEGMENT_LIMITS.indexMs);
  await s.persistence.flush();
  const q = s.persistence.queries;
  assert.deepEqual((await q.telemetry("touches")).map((b) => b.round_uuid), ["old", "new"]);
  assert.equal((await Array.fromAsync(Deno.readDir(`${dataDir}/record/100`))).length, 2);
  const results = await s.persistence.runRetention();
  assert.deepEqual(results.find((r) => r.table === "telemetry_segments"), {
    table: "telemetry_segments",
    by_age: 1,
    by_rows: 0,
  });
  assert.deepEqual((await q.telemetry("touches")).map((b) => b.round_uuid), ["new"]);
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(`${dataDir}/record/100`))).map((e) => e.name),
    ["2"],
    "the old file and its folder went",
  );
  await s.close();
});

Deno.test("wal inspect, dead-letter list and replay, runtime status", async () => {
  const dataDir = await dirs.fresh();
  const s = await startStack({ dataDir });
  const p = s.persistence;
  // A record this version cannot apply (as a newer server might have written).
  const bad = p.write({ t: "bogus", x: 1 } as never);
  p.setSetting("motd", "hi");
  const inspection = await p.walInspect(10);
  assert.equal(inspection.last_seq, bad + 1);
  assert.ok(inspection.segments.length >= 1);
  assert.ok(inspection.segments[0]!.file.endsWith(".wal"));
  await p.flush();
  const letters = await p.deadLetters();
  assert.deepEqual(letters.map((d) => d.seq), [bad]);
  assert.match(letters[0]!.error, /unknown type "bogus"/);
  assert.equal(p.status().dead_letters, 1);
  assert.equal(p.getSetting("motd"), "hi");
  const replay = await p.replayDeadLetters();
  assert.equal(replay.replayed, 0);
  assert.match(replay.failed[0]!.error ?? "", /unknown type/);
  const after = await p.walInspect(10);
  assert.equal(after.pending, 0);
  assert.deepEqual(after.first_pending, []);
  const status = p.status();
  assert.equal(status.queue_capacity, 2048);
  assert.equal(status.store_up, true);
  assert.equal(status.counters.journal_only, 0);
  await s.close();
});

Deno.test("cleanup of the template data directories", async () => {
  await tick();
  await dirs.cleanup();
});
