import { deepEqual, equal, match } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { newPendingId, PendingApprovals } from "./approvals.ts";

Deno.test("approvals: approve once, expire after the TTL, cancel silently", () => {
  const clock = new ManualClock();
  const q = new PendingApprovals(clock, 120);
  const seen: string[] = [];
  const a = q.request("one", () => seen.push("a approved"), () => seen.push("a expired"));
  const b = q.request("two", () => seen.push("b approved"), () => seen.push("b expired"));
  const c = q.request("three", () => seen.push("c approved"), () => seen.push("c expired"));
  equal(a.expires_at, clock.now() + 120_000);
  deepEqual(q.pending().map((p) => p.client_name), ["one", "two", "three"]);
  equal(q.approve(a.pending_id), "approved");
  equal(q.approve(a.pending_id), "unknown");
  c.cancel();
  clock.advance(120_000);
  equal(q.approve(b.pending_id), "expired");
  equal(q.approve("nothing"), "unknown");
  deepEqual(seen, ["a approved", "b expired"]);
  deepEqual(q.pending(), []);
  equal(clock.pending, 0);
  q.request("four", () => seen.push("x"), () => seen.push("x"));
  q.clear();
  clock.advance(200_000);
  equal(seen.length, 2);
});

Deno.test("pending ids are 8 hex digits from the system's random source", () => {
  match(newPendingId(), /^[0-9a-f]{8}$/);
});
