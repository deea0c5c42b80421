import assert from "node:assert/strict";
import { type CappedRound, RoundTelemetryCap } from "./telemetry_cap.ts";

Deno.test("telemetry cap: each player has a budget per round; the excess is dropped, counted and reported once", () => {
  const capped: CappedRound[] = [];
  const cap = new RoundTelemetryCap(1000, (c) => capped.push(c));
  assert.ok(cap.admit("r", "g1", 1, 10, 600));
  assert.ok(cap.admit("r", "g1", 2, 10, 900), "another player has a budget of their own");
  assert.ok(!cap.admit("r", "g1", 1, 5, 500), "600 + 500 passes 1000");
  assert.ok(!cap.admit("r", "g1", 1, 1, 10), "once capped, everything later in the round is dropped");
  assert.ok(cap.admit("r", "g1", 2, 1, 100), "exactly the budget fits");
  assert.deepEqual(cap.counters, { dropped_items: 6, dropped_bytes: 510, capped_rounds: 1 });
  assert.deepEqual(capped, [{ room: "r", round: "g1", user: 1, maxBytes: 1000 }]);
  assert.equal(cap.tracked, 2);
  cap.roundDone("g1");
  assert.equal(cap.tracked, 0, "a completed round is forgotten");
  assert.ok(cap.admit("r", "g2", 1, 10, 600), "the next round starts with a full budget");
  assert.ok(cap.admit("r", null, 3, 1, 1000), "round-less telemetry counts under its room");
  assert.ok(!cap.admit("r", null, 3, 1, 1));
  cap.roomGone("r");
  assert.equal(cap.tracked, 0, "a closed room's rounds are forgotten");
  assert.equal(capped.length, 2);
});
