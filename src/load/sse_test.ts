import { deepEqual, equal, ok } from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { startHttp } from "../http/mod.ts";
import { runSse } from "./scenario_sse.ts";
import { drive, startTestServer } from "./server_fixture_test_util.ts";
import { SseParser } from "./sse_client.ts";

Deno.test("SseParser splits events across chunks and skips comments", () => {
  const p = new SseParser();
  deepEqual(p.push('event: ready\ndata: {"a":'), []);
  deepEqual(p.push("1}\n\n: keep-alive\n\nevent: x\r\ndata: 1\ndata: 2\n\ndata: plain\n\n"), [
    { event: "ready", data: '{"a":1}' },
    { event: "x", data: "1\n2" },
    { event: "message", data: "plain" },
  ]);
});

Deno.test("sse scenario delivers every create_room to every subscriber", async () => {
  const t = await startTestServer();
  const http = await startHttp({ server: t.server, config: defaultConfig() }, {
    hostname: "127.0.0.1",
    port: 0,
    trustedPort: null,
  });
  const run = runSse(
    { subscribers: 5, eventsPerSec: 20, duration: 0.5, path: "/api/events", idBase: 4242 },
    { host: "127.0.0.1", port: t.port, pid: null, httpPort: http.port },
    { clock: t.clock, signal: new AbortController().signal, server: null, self: null },
  );
  const r = await drive(t.clock, run.result);
  deepEqual(r.errors.toJSON().byKind, {});
  const res = r.results as {
    subscribers: { ready: number };
    events: { created: number };
    deliveries: { missing: number };
  };
  equal(res.subscribers.ready, 5);
  ok(res.events.created >= 8, `${res.events.created} rooms`);
  equal(res.deliveries.missing, 0);
  await http.close();
  await t.close();
});
