import { deepEqual, equal } from "node:assert/strict";
import { type Db, migrate, SqliteDb } from "../db/mod.ts";
import { spectatorFiles } from "../http/spectator_page.ts";
import { Upstream } from "../upstream/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { type ChartHandler, createProxyApp, type RoomSource } from "./app.ts";
import { ProxyAuth } from "./auth.ts";
import { Fanout } from "./fanout.ts";
import { LiveViewers } from "./live.ts";
import { WsUpgrades } from "../http/ws_upgrade.ts";
import { RoomCache } from "./room_cache.ts";
import { LinkUnavailable } from "./link_status.ts";
import { SessionTokens } from "./session_token.ts";
import { PROXY_MIGRATIONS, VisitStore } from "./visits.ts";

const log = memoryLogHub().logger();

/** The application over in-memory parts: rooms from a cache, a store on SQLite in memory. */
async function app(o: { chart?: ChartHandler; db?: Db; rooms?: Partial<RoomSource> } = {}) {
  const clock = new ManualClock();
  const db = o.db ?? SqliteDb.open(":memory:");
  await migrate(db, "proxy", PROXY_MIGRATIONS);
  const upstream = new Upstream({ baseUrl: "http://api.invalid", fetch: () => Promise.reject(new Error("offline")) });
  const tokens = new SessionTokens({ sign: new Uint8Array(64), seal: new Uint8Array(32) }, clock);
  const auth = new ProxyAuth({ upstream, tokens, clock, log });
  const cache = new RoomCache();
  const rooms: RoomSource = {
    status: { status: "up", since: 0 },
    cache,
    fresh: () => Promise.resolve(),
    ...o.rooms,
  };
  return {
    db,
    app: createProxyApp({
      rooms,
      fanout: new Fanout({ clock }),
      visits: new VisitStore({ db, clock, log }),
      auth,
      live: new LiveViewers({
        address: { hostname: "127.0.0.1", port: 1 },
        auth,
        clock,
        log,
        upgrades: new WsUpgrades(clock),
      }),
      cors: { debug: false, origins: [] },
      page: spectatorFiles(log),
      log,
      chart: o.chart,
    }),
  };
}

Deno.test("proxy app: /chart/* goes to the chart service when there is one, 501 otherwise", async () => {
  const bare = await app();
  const none = await bare.app.request("/chart/42");
  deepEqual([none.status, await none.json()], [501, {
    error: "the chart service is not available on this proxy",
    code: 501,
  }]);
  const seen: string[] = [];
  const withChart = await app({
    chart: (req) => {
      seen.push(`${req.method} ${new URL(req.url).pathname}`);
      return new Response("chart bytes", { headers: { "content-type": "application/octet-stream" } });
    },
  });
  const ok = await withChart.app.request("/chart/42");
  equal(await ok.text(), "chart bytes");
  await (await withChart.app.request("/chart/42.json")).body?.cancel();
  const post = await withChart.app.request("/chart/42", { method: "POST" });
  equal(post.status, 405);
  deepEqual(seen, ["GET /chart/42", "GET /chart/42.json"]);
  await bare.db.close();
  await withChart.db.close();
});

Deno.test("proxy app: the spectator page, / redirecting to it, JSON 404s", async () => {
  const { app: a, db } = await app();
  const root = await a.request("/");
  deepEqual([root.status, root.headers.get("location")], [308, "spectator/"]);
  const bare = await a.request("/spectator");
  deepEqual([bare.status, bare.headers.get("location")], [308, "spectator/"]);
  const page = await a.request("/spectator/");
  equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  equal(page.headers.get("x-frame-options"), "DENY");
  equal((await page.text()).includes('<script type="module" src="app.js">'), true);
  const js = await a.request("/spectator/live_codec.js");
  equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
  await js.body?.cancel();
  const missing = await a.request("/spectator/../deno.json");
  equal(missing.status, 404);
  await missing.body?.cancel();
  deepEqual(await (await a.request("/nothing")).json(), { error: "route not found: /nothing", code: 404 });
  await db.close();
});

Deno.test("proxy app: /visited answers 503 while the store fails; a failing link is 503 with its reason", async () => {
  const db = SqliteDb.open(":memory:");
  const failing: Db = {
    dialect: db.dialect,
    exec: (s) => db.exec(s),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
    query: (sql, params) =>
      sql.startsWith("SELECT COUNT") ? Promise.reject(new Error("disk I/O error")) : db.query(sql, params),
  };
  const { app: a } = await app({
    db: failing,
    rooms: {
      fresh: () => Promise.reject(new LinkUnavailable("lost the game server: the server closed the connection")),
    },
  });
  const visited = await a.request("/visited?count_only=true");
  deepEqual([visited.status, await visited.json()], [503, { error: "visited-user store unavailable", code: 503 }]);
  const rooms = await a.request("/rooms/info");
  deepEqual([rooms.status, await rooms.json()], [503, {
    error: "game server unavailable: lost the game server: the server closed the connection",
    code: 503,
  }]);
  await db.close();
});
