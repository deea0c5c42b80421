/**
 * Error reporting (`sentry_dsn`) against a fake Sentry endpoint on
 * loopback: error-level log records and uncaught errors arrive as events
 * through the Sentry SDK, with users' tokens and the server's secrets
 * scrubbed; nothing is sent when no DSN is set; a storm is capped.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import {
  configSecrets,
  createErrorReporter,
  MAX_EVENTS_PER_MINUTE,
  NO_REPORTER,
  REDACTED,
  reportCrashes,
} from "../src/reporting/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";
import { serveDevApi } from "../src/upstream/mod.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { dataDirs } from "./support/persistence_stack.ts";

/** A fake Sentry ingestion endpoint: keeps every envelope's event items. */
function fakeSentry() {
  const events: Record<string, unknown>[] = [];
  const paths: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    paths.push(new URL(req.url).pathname);
    const lines = (await req.text()).split("\n").filter((l) => l.trim());
    // Envelope: a header line, then item header / item payload pairs.
    for (let i = 1; i + 1 < lines.length; i += 2) {
      if ((JSON.parse(lines[i]!) as { type?: string }).type === "event") events.push(JSON.parse(lines[i + 1]!));
    }
    return Response.json({});
  });
  return {
    dsn: `http://publickey0@127.0.0.1:${server.addr.port}/7`,
    events,
    paths,
    close: () => server.shutdown(),
  };
}

const USER_TOKEN = "ZkP3xq9LmN2vB7wT4yR8uC1sD6eF0gH5";

Deno.test("errors reach the fake Sentry endpoint scrubbed of tokens and secrets", async () => {
  const sentry = fakeSentry();
  const config = { ...defaultConfig(), admin_password: "very secret admin pass", sentry_dsn: sentry.dsn };
  const clock = new ManualClock();
  const reporter = createErrorReporter({
    dsn: sentry.dsn,
    release: "chorus@1.2.3",
    environment: "production",
    serverName: "test-node",
    secrets: [...configSecrets(config), USER_TOKEN],
    clock,
  });
  const logs = new LogHub({ sink: () => {} });
  const stop = reporter.follow(logs);
  try {
    const log = logs.logger({ component: "test" });
    log.info("not an error: not reported");
    log.warn("not an error either");
    log.error(`upstream refused token ${USER_TOKEN}`, { user: 100, room: "abc", token: USER_TOKEN });
    reporter.captureError(new Error("database login with password very secret admin pass failed"), {
      authorization: `Bearer ${USER_TOKEN}`,
    });
    equal(await reporter.flush(5000), true);
    equal(sentry.events.length, 2);
    deepEqual(sentry.paths, ["/api/7/envelope/", "/api/7/envelope/"]);
    const text = JSON.stringify(sentry.events);
    ok(!text.includes(USER_TOKEN), "no user token leaves the process");
    ok(!text.includes("very secret admin pass"), "no configured secret leaves the process");
    const [record, error] = sentry.events as {
      message?: string;
      extra?: Record<string, unknown>;
      release?: string;
      environment?: string;
      server_name?: string;
      exception?: { values: { value: string; stacktrace?: unknown }[] };
    }[];
    equal(record!.message, `upstream refused token ${REDACTED}`);
    deepEqual([record!.extra?.user, record!.extra?.room, record!.extra?.token], [100, "abc", REDACTED]);
    deepEqual([record!.release, record!.environment, record!.server_name], ["chorus@1.2.3", "production", "test-node"]);
    equal(error!.exception!.values[0]!.value, `database login with password ${REDACTED} failed`);
    ok(error!.exception!.values[0]!.stacktrace, "the stack trace is kept");
    equal(error!.extra?.authorization, REDACTED);
  } finally {
    stop();
    await reporter.close(1000);
    await sentry.close();
  }
});

Deno.test("an error storm is capped per minute; uncaught errors are reported before the exit", async () => {
  const sentry = fakeSentry();
  const clock = new ManualClock();
  const reporter = createErrorReporter({ dsn: sentry.dsn, release: "chorus@1", environment: "test", clock });
  const logs = new LogHub({ sink: () => {} });
  const stop = reporter.follow(logs);
  const log = logs.logger();
  const exits: number[] = [];
  const remove = reportCrashes(reporter, log, (code) => exits.push(code));
  try {
    for (let i = 0; i < MAX_EVENTS_PER_MINUTE + 10; i++) log.error(`failure ${i}`);
    equal(reporter.dropped, 10);
    await reporter.flush(5000);
    equal(sentry.events.length, MAX_EVENTS_PER_MINUTE);
    clock.advance(60_000);
    // An uncaught error (dispatched as the runtime does) is logged, reported with its stack, then the process exits.
    const event = new ErrorEvent("error", { error: new TypeError("boom"), cancelable: true });
    globalThis.dispatchEvent(event);
    equal(event.defaultPrevented, true);
    await reporter.flush(5000);
    while (!exits.length) await new Promise((r) => setTimeout(r, 0));
    deepEqual(exits, [70]);
    const last = sentry.events.at(-1) as { exception?: { values: { type: string; value: string }[] } };
    deepEqual(last.exception?.values[0], { ...last.exception!.values[0]!, type: "TypeError", value: "boom" });
  } finally {
    remove();
    stop();
    await reporter.close(1000);
    await sentry.close();
  }
});

Deno.test("without sentry_dsn nothing is set up or sent; with it the app reports its error logs", async () => {
  equal(createErrorReporter({ dsn: null, release: "x", environment: "y", clock: new ManualClock() }), NO_REPORTER);
  const sentry = fakeSentry();
  const dev = serveDevApi({ port: 0 });
  const dirs = dataDirs();
  try {
    const off = startTestApp(appConfig(await dirs.fresh(), dev.url));
    await off.ready;
    equal(off.reporter.enabled, false);
    off.logs.logger().error("an error nobody is told about");
    await off.stop();
    const on = startTestApp(appConfig(await dirs.fresh(), dev.url, { sentry_dsn: sentry.dsn }));
    await on.ready;
    equal(on.reporter.enabled, true);
    on.logs.logger().error("store write failed", { session: 5 });
    await on.reporter.flush(5000);
    await on.stop();
    deepEqual(sentry.events.map((e) => e.message), ["store write failed"], "only the reporting app sent anything");
  } finally {
    await sentry.close();
    await dev.close();
    await dirs.cleanup();
  }
});
