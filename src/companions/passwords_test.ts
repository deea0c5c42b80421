import { equal, ok } from "node:assert/strict";
import { lockedMessage, Lockout } from "./lockout.ts";
import { argon2Hasher, joinFragments, roleOf, TEST_ARGON2 } from "./passwords.ts";

Deno.test("argon2 hasher: salted PHC strings that verify; a malformed hash is false, not a throw", async () => {
  const h = argon2Hasher(TEST_ARGON2);
  const a = await h.hash("correct horse");
  const b = await h.hash("correct horse");
  ok(a.startsWith("$argon2id$v=19$m=256,t=1,p=1$"));
  ok(a !== b, "a fresh salt each time");
  equal(await h.verify(a, "correct horse"), true);
  equal(await h.verify(a, "correct horsE"), false);
  equal(await h.verify("", "x"), false);
  equal(await h.verify("plain text", "plain text"), false);
});

Deno.test("joinFragments keeps the fragments apart and refuses empty, long or NUL ones", () => {
  equal(joinFragments(["a", "b", "c"]), "a\0b\0c");
  ok(joinFragments(["ab", "c", "d"]) !== joinFragments(["a", "bc", "d"]));
  equal(joinFragments(["a", "", "c"]), null);
  equal(joinFragments(["a", "b"]), null);
  equal(joinFragments(["a", "b\0", "c"]), null);
  equal(joinFragments(["a", "b", "x".repeat(1025)]), null);
  equal(joinFragments(["a", null, "c"]), null);
});

Deno.test("roleOf: super first, then admin; unset roles and non-strings open nothing", async () => {
  const h = argon2Hasher(TEST_ARGON2);
  const hashes = { super: await h.hash("s-pass"), admin: await h.hash("a-pass") };
  equal(await roleOf(h, hashes, "s-pass"), "super");
  equal(await roleOf(h, hashes, "a-pass"), "admin");
  equal(await roleOf(h, hashes, "x"), null);
  equal(await roleOf(h, hashes, 42), null);
  equal(await roleOf(h, { super: "", admin: "" }, ""), null);
});

Deno.test("lockout: failures within the window lock for a while; success and time clear it; keys are bounded", () => {
  const l = new Lockout({ max_failures: 3, window_secs: 60, lockout_secs: 300 }, 2);
  equal(l.fail("a", 0), 0);
  equal(l.fail("a", 1000), 0);
  equal(l.fail("a", 2000), 300_000);
  equal(l.lockedFor("a", 2000), 300_000);
  equal(l.lockedFor("a", 302_000), 0);
  equal(l.fail("a", 302_001), 0, "a lock that ran out starts a new window");
  l.fail("b", 0);
  l.fail("b", 61_000); // outside the window: counts as the first again
  equal(l.fail("b", 62_000), 0);
  l.succeed("b");
  equal(l.size, 1);
  l.fail("c", 0);
  l.fail("d", 0);
  equal(l.size, 2, "the oldest key is dropped");
  equal(lockedMessage(900_000), "Too many failed attempts; try again in 15 min");
  equal(lockedMessage(30_000), "Too many failed attempts; try again in 30 s");
});
