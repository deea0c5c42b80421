import { deepEqual, equal, ok } from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { startHttp } from "../http/mod.ts";
import { parseLoadArgs, UsageError } from "./args.ts";
import type { HttpOptions } from "./args.ts";
import type { RunDeps, ScenarioResult } from "./scenario.ts";
import { runHttp } from "./scenario_http.ts";
import { drive, startTestServer, type TestServer } from "./server_fixture_test_util.ts";
import { serverFlagsFor } from "./target.ts";

interface HttpResults {
  requests: number;
  requestsPerSec: number;
  latency: { count: number; p50: number | null; p99: number | null; max: number | null };
  responseBytes: { total: number; avg: number | null };
  statuses: Record<string, number>;
  backgroundRooms: { target: number; ready: number; players: number } | null;
}

const base = { connections: 4, duration: 0.5, path: "/api/rooms", timeout: 60, rooms: 0, players: 2, idBase: 3000 };

function deps(t: TestServer, signal = new AbortController().signal): RunDeps {
  return { clock: t.clock, signal, server: null, self: null };
}

async function withHttp(fn: (t: TestServer, httpPort: number) => Promise<void>): Promise<void> {
  const t = await startTestServer();
  const http = await startHttp({ server: t.server, config: defaultConfig() }, {
    hostname: "127.0.0.1",
    port: 0,
    trustedPort: null,
  });
  try {
    await fn(t, http.port);
  } finally {
    await http.close();
    await t.close();
  }
}

function target(t: TestServer, httpPort: number) {
  return { host: "127.0.0.1", port: t.port, pid: null, httpPort };
}

Deno.test("http scenario counts requests, latency, sizes and statuses of /api/rooms", async () => {
  await withHttp(async (t, httpPort) => {
    const body = await (await fetch(`http://127.0.0.1:${httpPort}/api/rooms`)).arrayBuffer();
    const r: ScenarioResult = await drive(t.clock, runHttp(base, target(t, httpPort), deps(t)).result);
    deepEqual(r.errors.toJSON(), { total: 0, byKind: {}, samples: [] });
    const res = r.results as unknown as HttpResults;
    ok(res.requests >= base.connections, `${res.requests} requests`);
    deepEqual(res.statuses, { 200: res.requests });
    equal(res.latency.count, res.requests);
    ok(res.requestsPerSec > 0);
    equal(res.responseBytes.avg, body.byteLength, "every body was read whole");
    equal(res.backgroundRooms, null);
    ok(r.rows.some(([k, v]) => k === "status counts" && v === `200: ${res.requests}`));
  });
});

Deno.test("http scenario counts non-2xx answers and refused connections as errors", async () => {
  await withHttp(async (t, httpPort) => {
    const r = await drive(t.clock, runHttp({ ...base, path: "/api/nope" }, target(t, httpPort), deps(t)).result);
    const res = r.results as unknown as HttpResults;
    ok(res.requests > 0);
    deepEqual(res.statuses, { 404: res.requests });
    deepEqual(r.errors.toJSON().byKind, { "http-status": res.requests });
    ok(r.errors.toJSON().samples[0]!.startsWith("http-status: 404"));
  });
  // Nothing listens on a port that was just closed: every request fails, none hangs.
  const t = await startTestServer();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const r = await drive(t.clock, runHttp({ ...base, connections: 2, duration: 0.2 }, target(t, port), deps(t)).result);
  const res = r.results as unknown as HttpResults;
  equal(res.requests, 0);
  deepEqual(res.statuses, {});
  ok((r.errors.toJSON().byKind.fetch ?? 0) >= 2, JSON.stringify(r.errors.toJSON()));
  await t.close();
});

Deno.test("http scenario with background rooms lists them while it runs and closes them after", async () => {
  await withHttp(async (t, httpPort) => {
    const idle = await (await fetch(`http://127.0.0.1:${httpPort}/api/rooms`)).arrayBuffer();
    const r = await drive(t.clock, runHttp({ ...base, rooms: 2, players: 3 }, target(t, httpPort), deps(t)).result);
    deepEqual(r.errors.toJSON().byKind, {});
    const res = r.results as unknown as HttpResults;
    deepEqual(res.backgroundRooms, { target: 2, ready: 2, players: 3 });
    ok(res.responseBytes.avg! > idle.byteLength, `${res.responseBytes.avg} B with rooms, ${idle.byteLength} B without`);
    await drive(t.clock, Promise.resolve());
    equal(t.server.core.rooms.size, 0, "the background rooms are gone");
    equal(t.server.core.sessions.size, 0);
  });
});

Deno.test("http scenario stops early on its signal without counting cut requests as errors", async () => {
  await withHttp(async (t, httpPort) => {
    const stop = new AbortController();
    const run = runHttp({ ...base, duration: 3600 }, target(t, httpPort), deps(t, stop.signal));
    await drive(t.clock, Promise.resolve(), 10, 30);
    equal(run.status().phase, "requests");
    stop.abort();
    const r = await drive(t.clock, run.result);
    equal(r.errors.total, 0, JSON.stringify(r.errors.toJSON()));
    equal(run.status().phase, "teardown");
  });
});

Deno.test("parseLoadArgs reads the http scenario and refuses bad paths", () => {
  const o = parseLoadArgs(["--", "http", "--connections", "256", "--duration", "10s", "--rooms", "100"]) as HttpOptions;
  deepEqual([o.scenario, o.connections, o.duration, o.path, o.rooms, o.players, o.timeout], [
    "http",
    256,
    10,
    "/api/rooms",
    100,
    8,
    5,
  ]);
  deepEqual(serverFlagsFor(o), ["--max-sessions", "4096"]);
  equal((parseLoadArgs(["http", "--path", "/health/live"]) as HttpOptions).path, "/health/live");
  for (
    const [args, message] of [
      [["http", "--path", "api/rooms"], /expected a path from \//],
      [["http", "--connections", "0"], /outside 1\.\.10000/],
      [["http", "--id-base", "999990", "--rooms", "10"], /player ids ≤ 999999/],
    ] as const
  ) {
    let error: unknown = null;
    try {
      parseLoadArgs([...args]);
    } catch (e) {
      error = e;
    }
    ok(error instanceof UsageError && message.test(error.message), String(error));
  }
});
