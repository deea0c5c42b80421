import { deepEqual, equal, throws } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { ApiError } from "./errors.ts";
import { judgeRoom, type ProofOutcome, Verifications } from "./verification.ts";

Deno.test("judgeRoom: only the token room counts, and only from the named account", () => {
  const proof = { token: "abc123abc123", gameId: 100 };
  equal(judgeRoom(proof, "other", 100), "ignore");
  equal(judgeRoom(proof, "abc123abc123", 100), "matched");
  equal(judgeRoom(proof, "abc123abc123", 200), "wrong_account");
  equal(judgeRoom(proof, "ABC123ABC123", 100), "ignore", "exact name");
});

Deno.test("proofs: outcomes once, timeout on the clock, tokens avoid existing rooms, limits per address", () => {
  const clock = new ManualClock();
  const v = new Verifications({ clock, timeoutMs: 1000, maxPending: 4, maxPerIp: 2 });
  const outcomes: [string, ProofOutcome][] = [];
  let taken = 0;
  const a = v.start(100, "ip1", () => taken++ < 3, (o) => outcomes.push(["a", o]));
  equal(taken, 4, "tokens of existing rooms are drawn again");
  const b = v.start(100, "ip1", () => false, (o) => outcomes.push(["b", o]));
  throws(
    () => v.start(1, "ip1", () => false, () => {}),
    (e: unknown) => e instanceof ApiError && e.code === "rate_limited",
  );
  const c = v.start(200, "ip2", () => false, (o) => outcomes.push(["c", o]));
  v.roomCreated(a.token, 300);
  v.roomCreated(a.token, 100);
  v.roomCreated(b.token, 100);
  v.supersede(100);
  clock.advance(999);
  equal(v.pending, 1);
  clock.advance(1);
  c.cancel();
  deepEqual(outcomes, [
    ["a", { type: "wrong_account", creator: 300 }],
    ["b", { type: "matched" }],
    ["c", { type: "timeout" }],
  ]);
  equal(v.pending, 0);
  equal(clock.pending, 0);
  const d = v.start(5, "ip3", () => false, (o) => outcomes.push(["d", o]));
  d.cancel();
  v.start(6, "ip3", () => false, (o) => outcomes.push(["e", o]));
  v.cancelAll();
  deepEqual(outcomes.slice(3), [["e", { type: "cancelled" }]], "cancel() is silent; cancelAll() tells");
});
