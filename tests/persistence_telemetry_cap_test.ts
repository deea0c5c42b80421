/**
 * What one round may store of a player's touches and judges (issue 14
 * "Hostile clients", persistence side): a player in a watched room sends
 * far more touch data than a real client; the store keeps at most
 * `round_telemetry_max_mb` of it for that player and round, the rest is
 * dropped and counted in `runtime persistence`, one WARN line names the
 * player-round, and the next round starts with a fresh budget.
 */
import assert from "node:assert/strict";
import type { TouchFrame } from "../src/protocol/mod.ts";
import { devRecordId } from "../src/upstream/mod.ts";
import { UNLIMITED_TELEMETRY } from "./support/harness.ts";
import { dataDirs, startStack } from "./support/persistence_stack.ts";
import { SEGMENT_LIMITS } from "../src/persistence/telemetry/mod.ts";

const dirs = dataDirs();

/** A touch frame with ten fingers (about 250 bytes of JSON, 55 on the wire). */
const frame = (time: number): TouchFrame => ({
  time,
  points: Array.from({ length: 10 }, (_, i) => [i, { x: 0.5, y: -0.25 }] as [number, { x: number; y: number }]),
});

Deno.test("a player's touches beyond the per-round budget are dropped and counted; the next round starts afresh", async () => {
  // The wire's per-player budget would drop this flood first (issue 14): lifted, so the store's own cap is what acts.
  const dataDir = await dirs.fresh();
  const s = await startStack({
    dataDir,
    config: { round_telemetry_max_mb: 1 },
    telemetryBudget: UNLIMITED_TELEMETRY,
  });
  const alice = await s.login(100);
  await alice.createRoom("cap");
  const mon = await s.login(9);
  await mon.joinRoom("cap", true); // A watched room is live: its players' touches are relayed and recorded.
  await alice.selectChart(1);
  await alice.requestStart();
  await mon.ready(); // Monitors ready too (protocol.md §5.5); then the round starts.
  await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
  // 24,000 frames, about 1.3 MB of wire bytes (6 MB of JSON), against a 1 MB budget.
  for (let i = 0; i < 240; i++) alice.touches(Array.from({ length: 100 }, (_, j) => frame(i * 100 + j)));
  await alice.chat("sync"); // Answered after every Touches before it.
  s.clock.advance(SEGMENT_LIMITS.indexMs); // Written every 500 ms, indexed every 5 s.
  await s.persistence.flush();
  const t = s.persistence.status().telemetry!;
  assert.equal(t.round_max_bytes, 1024 * 1024);
  assert.equal(t.capped_rounds, 1);
  assert.ok(t.dropped_items >= 3000 && t.dropped_items < 24000, `dropped ${t.dropped_items} frames`);
  const stored = await s.persistence.queries.telemetry("touches", { player: 100, limit: 500 });
  assert.ok(stored.every((b) => b.round_uuid !== null), "recorded in the round");
  const frames = stored.reduce((n, b) => n + b.item_count, 0);
  assert.equal(frames + t.dropped_items, 24000, "every frame is either stored or counted as dropped");
  // What the round's file holds past its 14-byte header: the budget counts the bytes stored.
  const [file] = await Array.fromAsync(Deno.readDir(`${dataDir}/record/100/1`));
  const bytes = (await Deno.stat(`${dataDir}/record/100/1/${file!.name}`)).size - 14;
  assert.ok(bytes <= 1024 * 1024 && bytes > 1000 * 1024, `stored ${bytes} bytes`);
  const warned = s.logs.history().filter((r) => r.msg.startsWith("telemetry cap reached"));
  assert.deepEqual(warned.map((r) => [r.level, r.fields?.user, r.fields?.room]), [["warn", 100, "cap"]]);

  // The round ends: the next one has a budget of its own.
  await alice.played(devRecordId(100, 1));
  await alice.waitForMessage("GameEnd");
  await alice.requestStart();
  await mon.ready();
  await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
  alice.touches([frame(1), frame(2)]);
  await alice.chat("sync");
  s.clock.advance(SEGMENT_LIMITS.indexMs); // Written every 500 ms, indexed every 5 s.
  await s.persistence.flush();
  assert.equal(s.persistence.status().telemetry!.dropped_items, t.dropped_items, "nothing more dropped");
  const after = await s.persistence.queries.telemetry("touches", { player: 100, limit: 500 });
  assert.equal(after.reduce((n, b) => n + b.item_count, 0), frames + 2);
  await s.close();
});

Deno.test("cleanup of the template data directories", async () => {
  await dirs.cleanup();
});
