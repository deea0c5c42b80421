import assert from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { lazyErrorReporter } from "./lazy.ts";
import { NO_REPORTER } from "./reporter.ts";

Deno.test("lazyErrorReporter: no DSN is the reporter that reports nothing", () => {
  const clock = new ManualClock();
  assert.equal(lazyErrorReporter({ dsn: null, release: "x", environment: "y", clock }), NO_REPORTER);
  assert.equal(lazyErrorReporter({ dsn: "", release: "x", environment: "y", clock }), NO_REPORTER);
});

Deno.test("lazyErrorReporter: what is reported before the SDK has loaded is sent once it has, scrubbed", async () => {
  const bodies: string[] = [];
  const fetch = (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(typeof init?.body === "string" ? init.body : new TextDecoder().decode(init?.body as Uint8Array));
    return Promise.resolve(new Response(null, { status: 200 }));
  };
  const logs = new LogHub({ level: "info", sink: () => {} });
  const reporter = lazyErrorReporter({
    dsn: "http://publickey0@127.0.0.1:9/7",
    release: "chorus@1",
    environment: "test",
    secrets: ["hunter2-secret"],
    clock: new ManualClock(),
    fetch: fetch as typeof globalThis.fetch,
  });
  assert.equal(reporter.enabled, true);
  const unfollow = reporter.follow(logs);
  // At once, before the client module can have loaded.
  reporter.captureError(new Error("early failure hunter2-secret"));
  logs.logger().error("store write failed", { room: "r1" });
  logs.logger().info("not an error: never reported");
  assert.equal(await reporter.flush(2000), true);
  unfollow();
  await reporter.close(2000);
  const all = bodies.join("\n");
  assert.match(all, /early failure/);
  assert.match(all, /store write failed/);
  assert.doesNotMatch(all, /hunter2-secret/);
  assert.doesNotMatch(all, /never reported/);
  assert.equal(reporter.dropped, 0);
});
