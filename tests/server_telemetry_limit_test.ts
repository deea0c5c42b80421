/**
 * Telemetry limits (issue 14 "Telemetry is not limited"): one player in a
 * watched room could publish — and so store — telemetry as fast as it could
 * write. Touches and Judges are held to what the official client sends, with
 * headroom; the excess is dropped and counted, the real client's stream
 * never is.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { DomainEvent } from "../src/events/mod.ts";
import { TelemetryPacer } from "../src/load/pacing.ts";
import type { JudgeEvent, TouchFrame } from "../src/protocol/mod.ts";
import { TELEMETRY_BUDGET } from "../src/server/mod.ts";
import { type Harness, startHarness } from "./support/harness.ts";

/** A player (100) in a room watched by a monitor (9), and every telemetry event the bus carries (what is stored). */
async function watchedRoom(h: Harness) {
  const player = await h.login(100);
  const monitor = await h.login(9);
  await player.createRoom("abc");
  await monitor.joinRoom("abc", true);
  const stored = { touches: 0, judges: 0, items: 0, bytes: 0 };
  h.bus.listen((e: DomainEvent) => {
    if (e.kind === "touches") {
      stored.touches++;
      stored.items += e.frames.length;
      stored.bytes += JSON.stringify(e.frames).length;
    } else if (e.kind === "judges") {
      stored.judges++;
      stored.items += e.judges.length;
      stored.bytes += JSON.stringify(e.judges).length;
    }
  }, { telemetry: true });
  return { player, monitor, stored };
}

/** A full batch of the official client: 21 frames (more than 20 queued) of ten fingers. */
function touchBatch(): TouchFrame[] {
  return Array.from({ length: 21 }, (_, k) => ({
    time: k / 20,
    points: Array.from({ length: 10 }, (_, f) => [f, { x: 0.5, y: -0.25 }] as TouchFrame["points"][number]),
  }));
}

function judgeBatch(n: number): JudgeEvent[] {
  return Array.from({ length: n }, (_, k) => ({ time: k / 100, line_id: 0, note_id: k, judgement: "Perfect" }));
}

const counters = (h: Harness) => h.server.core.counters.values;

Deno.test("a telemetry flood is cut to the session's budget; the excess is dropped and counted", async () => {
  const h = await startHarness();
  const { player, stored } = await watchedRoom(h);
  const batch = touchBatch(); // 21 frames + 210 points = 231 items
  for (let i = 0; i < 200; i++) player.touches(batch);
  for (let i = 0; i < 200; i++) player.judges(judgeBatch(100));
  // Commands of one session are handled in order: once the chat is answered, every telemetry frame before it was.
  await player.chat("done");
  const touchBurst = TELEMETRY_BUDGET.touches.itemsPerSec * TELEMETRY_BUDGET.burstSecs;
  const judgeBurst = TELEMETRY_BUDGET.judges.itemsPerSec * TELEMETRY_BUDGET.burstSecs;
  const touchesPassed = Math.floor(touchBurst / 231);
  const judgesPassed = Math.floor(judgeBurst / 100);
  equal(stored.touches, touchesPassed);
  equal(stored.judges, judgesPassed);
  equal(counters(h).telemetry_dropped, 400 - touchesPassed - judgesPassed);
  equal(counters(h).telemetry_items_dropped, (200 - touchesPassed) * 231 + (200 - judgesPassed) * 100);
  // The budget refills at its rate: one second later a second's worth passes again.
  await h.advance(1000);
  for (let i = 0; i < 20; i++) player.touches(batch);
  await player.chat("again");
  equal(stored.touches - touchesPassed, Math.floor((touchBurst - touchesPassed * 231 + 1000) / 231));
  // The counters are in the runtime report's registry section (console `status`, OpenUDS `runtime.status`).
  ok(Object.hasOwn(h.server.core.counters.values, "telemetry_dropped"));
  await h.close();
});

Deno.test("many small telemetry messages are limited by count too", async () => {
  const h = await startHarness();
  const { player, stored } = await watchedRoom(h);
  for (let i = 0; i < 1000; i++) player.touches([]);
  await player.chat("done");
  equal(stored.touches, TELEMETRY_BUDGET.touches.messagesPerSec * TELEMETRY_BUDGET.burstSecs);
  equal(counters(h).telemetry_dropped, 1000 - stored.touches);
  await h.close();
});

Deno.test("the official client's stream at its peak (ten fingers, 120 notes/s) passes whole", async () => {
  // Ten fingers moving out of step give up to 200 one-point frames a second (400 items); ten in step at 40 Hz give
  // 440 items a second in batches of 21 frames: more than the client's worst case.
  const h = await startHarness();
  const { player, stored } = await watchedRoom(h);
  const start = h.clock.monotonic();
  const pacer = new TelemetryPacer({ fingers: 10, touchHz: 40, notesPerSec: 120 }, start, start);
  let sentItems = 0;
  let sent = 0;
  for (let t = start; t < start + 30_000; t += 50) {
    h.clock.advance(t - h.clock.monotonic());
    const out = pacer.poll(t);
    if (out.touches) {
      player.touches(out.touches);
      sent++;
      sentItems += out.touches.length;
    }
    if (out.judges) {
      player.judges(out.judges);
      sent++;
      sentItems += out.judges.length;
    }
    if (t % 1000 === 0) await player.chat("tick");
  }
  await player.chat("done");
  deepEqual({ dropped: counters(h).telemetry_dropped, stored: stored.touches + stored.judges, items: stored.items }, {
    dropped: 0,
    stored: sent,
    items: sentItems,
  });
  await h.close();
});

Deno.test("the most telemetry one player can have stored is about 100 KB a second", async () => {
  const h = await startHarness();
  const { player, stored } = await watchedRoom(h);
  // Items whose JSON is longest: f16/f32 values with 25-character decimal forms, extreme ids and enum values.
  const x = -0.0000010132789611816406;
  const point = [-128, { x, y: x }] as TouchFrame["points"][number];
  const frames: TouchFrame[] = [{ time: -1.1754942106924411e-38, points: Array.from({ length: 199 }, () => point) }];
  const judges: JudgeEvent[] = Array.from({ length: 50 }, () => ({
    time: -1.1754942106924411e-38,
    line_id: 4294967295,
    note_id: 4294967295,
    judgement: "HoldPerfect",
  }));
  const seconds = 60;
  for (let s = 0; s < seconds; s++) {
    for (let i = 0; i < 20; i++) {
      player.touches(frames);
      player.judges(judges);
    }
    await player.chat("tick");
    await h.advance(1000);
  }
  const perSec = stored.bytes / seconds;
  // Measured: 100,411 B/s over 60 s (1,000 touch items × ~69 B + 250 judge events × ~103 B a second, plus the burst).
  ok(perSec < 110_000, `${perSec} B/s`);
  await h.close();
});
