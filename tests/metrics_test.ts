/**
 * `GET /metrics` (issue 22): Prometheus text that a strict parser and the
 * npm `parse-prometheus-text-format` both accept, whose counters move with
 * a scripted round played by protocol clients against an in-process
 * server, and the wired app serving it on its HTTP port.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import parsePrometheus from "parse-prometheus-text-format";
import { createHttpApp } from "../src/http/mod.ts";
import { CommandCounter, ServerMetrics } from "../src/metrics/mod.ts";
import { defaultConfig } from "../src/config/mod.ts";
import { INVARIANT_COUNTERS } from "../src/server/mod.ts";
import { serveDevApi } from "../src/upstream/mod.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { freePort } from "./support/child_server.ts";
import { startHarness } from "./support/harness.ts";
import { dataDirs } from "./support/persistence_stack.ts";
import { type Exposition, parseExposition } from "./support/prometheus.ts";

Deno.test("/metrics parses strictly and its counters move with a scripted round", async () => {
  const h = await startHarness();
  const commands = new CommandCounter();
  h.server.commands.use(commands.link);
  const metrics = new ServerMetrics({ core: h.server.core, version: "9.9.9", commands: () => commands.snapshot() });
  const http = createHttpApp({ server: h.server, config: defaultConfig(), metrics });
  const scrape = async (): Promise<Exposition> => {
    const res = await http.request("/metrics");
    equal(res.status, 200);
    equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    // The lenient npm parser reads every family too.
    const families = parsePrometheus(text) as { name: string }[];
    const exposition = parseExposition(text);
    deepEqual(new Set(families.map((f) => f.name)), new Set(exposition.types.keys()));
    return exposition;
  };
  try {
    const before = await scrape();
    equal(before.value("chorus_build_info", { version: "9.9.9" }), 1);
    equal(before.value("chorus_sessions"), 0);
    equal(before.value("chorus_logins_total", { outcome: "ok" }), 0);
    for (const state of ["loaded", "enabled", "disabled", "error"]) equal(before.value("chorus_plugins", { state }), 0);
    ok(before.types.get("process_resident_memory_bytes"), "the process's own metrics are there");

    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await alice.selectChart(7);
    await alice.requestStart();
    await bob.ready();
    const playing = await scrape();
    equal(playing.value("chorus_rooms", { state: "playing" }), 1);
    equal(playing.value("chorus_rooms", { state: "select_chart" }), 0);
    equal(playing.value("chorus_sessions"), 2);
    equal(playing.value("chorus_users", { state: "connected" }), 2);

    await alice.played(100001);
    await bob.abort();
    await h.advance(0);
    const after = await scrape();
    equal(after.value("chorus_rooms", { state: "select_chart" }), 1);
    equal(after.value("chorus_rooms", { state: "playing" }), 0);
    equal(after.value("chorus_logins_total", { outcome: "ok" }), 2);
    equal(after.value("chorus_handshake_latency_seconds_count"), 2);
    equal(after.value("chorus_handshake_latency_seconds_bucket", { le: "+Inf" }), 2);
    // createRoom, joinRoom, selectChart, requestStart, ready, played, abort: seven replies.
    const replies = after.value("chorus_response_latency_seconds_count");
    ok(replies >= 7, `replies counted (${replies})`);
    equal(after.value("chorus_requests_total") - before.value("chorus_requests_total"), replies);
    ok(after.value("chorus_server_events_total", { counter: "response_flushed" }) >= 2);
    for (const kind of ["CreateRoom", "JoinRoom", "SelectChart", "RequestStart", "Ready", "Played", "Abort"]) {
      equal(after.value("chorus_commands_total", { kind }), 1, kind);
    }
    ok(after.value("chorus_event_bus_published_total") > before.value("chorus_event_bus_published_total"));
    for (const counter of INVARIANT_COUNTERS) {
      equal(after.value("chorus_compat_invariant_total", { counter }), 0, `${counter} stays 0`);
    }

    // A failed login moves its own outcome.
    const mallory = await h.connect();
    await mallory.authenticate("not-a-valid-token-of-the-dev-api").catch(() => {});
    await h.advance(0);
    equal((await scrape()).value("chorus_logins_total", { outcome: "failed" }), 1);
  } finally {
    await h.close();
  }
});

Deno.test("the strict exposition reader refuses malformed text", () => {
  const bad = [
    "x 1", // no final newline
    '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n', // repeated series
    'x{a="\\q"} 1\n', // bad escape
    "# TYPE x counter\nx -1\n", // negative counter
    "x 1\n# TYPE x gauge\n", // TYPE after samples
    '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n', // not cumulative
    '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 3\n', // +Inf != count
    "9x 1\n", // bad name
  ];
  for (const text of bad) {
    let threw = false;
    try {
      parseExposition(text);
    } catch (error) {
      threw = error instanceof SyntaxError;
    }
    ok(threw, JSON.stringify(text));
  }
});

Deno.test("the wired app serves /metrics on its HTTP port", async () => {
  const dev = serveDevApi({ port: 0 });
  const dirs = dataDirs();
  const port = freePort();
  const app = startTestApp(appConfig(await dirs.fresh(), dev.url, { http_port: port }));
  try {
    await app.ready;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    equal(res.status, 200);
    const exposition = parseExposition(await res.text());
    equal(exposition.value("chorus_store_up"), 1);
    equal(exposition.value("chorus_persistence_queue", { of: "capacity" }), 2048);
    equal(exposition.value("chorus_update", { state: "pending" }), 0);
    ok(exposition.value("chorus_persistence_events_total", { counter: "appended" }) >= 0);
  } finally {
    await app.stop();
    await dev.close();
    await dirs.cleanup();
  }
});
