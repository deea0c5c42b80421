import assert from "node:assert/strict";
import { bindWithRetry } from "./bind_retry.ts";
import { ManualClock } from "./clock.ts";

Deno.test("bindWithRetry binds once the previous holder lets the port go", async () => {
  const clock = new ManualClock();
  const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (holder.addr as Deno.NetAddr).port;
  let attempts = 0;
  const bound = bindWithRetry(() => {
    attempts++;
    return Deno.listen({ hostname: "127.0.0.1", port });
  }, clock);
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
    clock.advance(100);
  }
  assert.ok(attempts >= 2, `retried (${attempts} attempts)`);
  holder.close();
  clock.advance(100);
  const listener = await bound;
  assert.equal((listener.addr as Deno.NetAddr).port, port);
  listener.close();
});

Deno.test("bindWithRetry gives up with AddrInUse after the window and rethrows other errors at once", async () => {
  const clock = new ManualClock();
  const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (holder.addr as Deno.NetAddr).port;
  const bound = bindWithRetry(() => Deno.listen({ hostname: "127.0.0.1", port }), clock, 3000);
  const outcome = bound.then(() => "bound", (e) => e);
  for (let i = 0; i < 40; i++) {
    await Promise.resolve();
    clock.advance(100);
  }
  assert.ok((await outcome) instanceof Deno.errors.AddrInUse);
  holder.close();
  let calls = 0;
  await assert.rejects(
    bindWithRetry(() => {
      calls++;
      throw new TypeError("bad address");
    }, clock),
    TypeError,
  );
  assert.equal(calls, 1);
});

Deno.test("bindWithRetry awaits an asynchronous bind and retries node's EADDRINUSE", async () => {
  const clock = new ManualClock();
  let attempts = 0;
  const bound = bindWithRetry(async () => {
    await Promise.resolve();
    if (++attempts < 3) throw Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });
    return "listening";
  }, clock);
  for (let i = 0; i < 5 && attempts < 3; i++) {
    for (let j = 0; j < 5; j++) await Promise.resolve();
    clock.advance(100);
  }
  assert.equal(await bound, "listening");
  assert.equal(attempts, 3);
  await assert.rejects(
    bindWithRetry(() => Promise.reject(Object.assign(new Error("EACCES"), { code: "EACCES" })), clock),
    /EACCES/,
  );
});
