import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { AdminAuth, type LoginOutcome } from "./admin_auth.ts";

function token(outcome: LoginOutcome): string {
  if (!outcome.ok) throw new Error(`login failed: ${outcome.reason}`);
  return outcome.token;
}

Deno.test("AdminAuth without a password refuses every login", () => {
  for (const password of [null, ""]) {
    const auth = new AdminAuth({ password, clock: new ManualClock() });
    equal(auth.enabled, false);
    deepEqual(auth.login("", "a"), { ok: false, reason: "disabled" });
    equal(auth.check("anything"), false);
  }
});

Deno.test("AdminAuth checks the password exactly and issues distinct session tokens", () => {
  const auth = new AdminAuth({ password: "s3cret-pass", clock: new ManualClock() });
  for (const wrong of ["s3cret-pas", "s3cret-pass ", "S3CRET-PASS", ""]) {
    deepEqual(auth.login(wrong, `ip-${wrong}`), { ok: false, reason: "wrong-password" });
  }
  const a = token(auth.login("s3cret-pass", "1"));
  const b = token(auth.login("s3cret-pass", "1"));
  equal(a === b, false);
  equal(a.length, 43);
  equal(auth.check(a) && auth.check(b), true);
  equal(auth.check(a + "x"), false);
  equal(auth.check(undefined), false);
  equal(auth.logout(a), true);
  equal(auth.check(a), false);
  equal(auth.logout(a), false);
});

Deno.test("AdminAuth limits attempts per address within the window; success resets", () => {
  const clock = new ManualClock();
  const auth = new AdminAuth({ password: "pw-123456", clock, maxAttempts: 3, windowMs: 10_000 });
  for (let i = 0; i < 3; i++) equal(auth.login("x", "a").ok, false);
  clock.advance(4_000);
  deepEqual(auth.login("pw-123456", "a"), { ok: false, reason: "rate-limited", retryAfterSecs: 6 });
  equal(auth.login("pw-123456", "b").ok, true);
  clock.advance(6_000);
  equal(auth.login("pw-123456", "a").ok, true);
  for (let i = 0; i < 2; i++) equal(auth.login("x", "a").ok, false);
  equal(auth.login("pw-123456", "a").ok, true);
  equal(auth.login("x", "a").ok, false);
  equal(auth.login("x", "a").ok, false);
  equal(auth.login("pw-123456", "a").ok, true);
});

Deno.test("AdminAuth forgets the least recent address beyond its limit", () => {
  const auth = new AdminAuth({
    password: "pw-123456",
    clock: new ManualClock(),
    maxAttempts: 1,
    maxTrackedAddresses: 2,
  });
  auth.login("x", "a");
  auth.login("x", "b");
  equal(auth.login("pw-123456", "a").ok, false);
  auth.login("x", "c");
  auth.login("x", "d");
  // "a" was evicted, so it may try again.
  equal(auth.login("pw-123456", "a").ok, true);
});

Deno.test("AdminAuth sessions end when idle, at their maximum age, and beyond the session limit", () => {
  const clock = new ManualClock();
  const auth = new AdminAuth({ password: "pw-123456", clock, sessionIdleMs: 1000, sessionMaxMs: 2500, maxSessions: 2 });
  const a = token(auth.login("pw-123456", "1"));
  clock.advance(900);
  equal(auth.check(a), true);
  clock.advance(900);
  equal(auth.check(a), true);
  clock.advance(1001);
  equal(auth.check(a), false);
  const b = token(auth.login("pw-123456", "1"));
  for (let i = 0; i < 3; i++) {
    clock.advance(800);
    equal(auth.check(b), true);
  }
  clock.advance(800);
  equal(auth.check(b), false);
  const c = token(auth.login("pw-123456", "1"));
  const d = token(auth.login("pw-123456", "1"));
  const e = token(auth.login("pw-123456", "1"));
  equal(auth.sessionCount, 2);
  deepEqual([auth.check(c), auth.check(d), auth.check(e)], [false, true, true]);
});
