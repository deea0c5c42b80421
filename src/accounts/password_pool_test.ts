import { equal, match, ok, rejects } from "node:assert/strict";
import { HasherBusyError, WorkerHasher } from "./password_pool.ts";
import { DEFAULT_ARGON2, InlineHasher, paramsOf, passwordProblem, TEST_ARGON2, weakerThan } from "./passwords.ts";

Deno.test("worker hasher: Argon2id encoded hashes that verify, with fresh salts", async () => {
  const h = new WorkerHasher({ params: TEST_ARGON2 });
  try {
    const a = await h.hash("correct horse");
    const b = await h.hash("correct horse");
    match(a, /^\$argon2id\$v=19\$m=256,t=1,p=1\$/);
    ok(a !== b, "salted");
    equal(await h.verify("correct horse", a), true);
    equal(await h.verify("wrong horse", a), false);
    equal(await h.verify("x", "not a hash"), false);
    equal(await h.verify("x", "$argon2id$v=19$m=256,t=1,p=1$bad$bad"), false);
    // The inline hasher reads the same format.
    equal(await new InlineHasher(TEST_ARGON2).verify("correct horse", a), true);
  } finally {
    h.close();
  }
});

Deno.test("worker hasher: hashing leaves the event loop free", async () => {
  const h = new WorkerHasher();
  try {
    let ticks = 0;
    let done = false;
    const spin = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, 0));
        ticks++;
      }
    })();
    const hash = await h.hash("a long enough password");
    done = true;
    await spin;
    match(hash, /m=19456,t=2,p=1/);
    ok(ticks >= 2, `the loop ran ${ticks} times while a production hash was computed`);
  } finally {
    h.close();
  }
});

Deno.test("worker hasher: a bounded number of operations wait; beyond it calls fail fast; close ends them", async () => {
  const h = new WorkerHasher({ params: TEST_ARGON2, maxPending: 2 });
  const first = h.hash("one-password");
  const second = h.hash("two-password");
  await rejects(h.hash("three-password"), HasherBusyError);
  await first;
  await second;
  equal(h.pending, 0);
  h.close();
  await rejects(h.hash("late-password"), /stopping/);
});

Deno.test("parameters travel with the hash; weaker ones ask for a re-hash", () => {
  const weak = "$argon2id$v=19$m=256,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g";
  equal(paramsOf(weak)?.memorySize, 256);
  equal(weakerThan(weak, DEFAULT_ARGON2), true);
  equal(weakerThan("$argon2id$v=19$m=19456,t=2,p=1$x$y", DEFAULT_ARGON2), false);
  equal(weakerThan("$2b$10$bcrypt", DEFAULT_ARGON2), true);
  equal(new WorkerHasher().needsRehash(weak), true);
});

Deno.test("password rules: 8 to 256 characters, counted as characters", () => {
  equal(passwordProblem("1234567"), "password must have at least 8 characters");
  equal(passwordProblem("12345678"), null);
  equal(passwordProblem("密码密码密码密码"), null);
  equal(passwordProblem("x".repeat(257)), "password must have at most 256 characters");
});
