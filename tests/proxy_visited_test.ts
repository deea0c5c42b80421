/**
 * `/visited` of the monitor proxy (spec 1 §2.2, §4.1): ids of players the
 * game server reports (`UserVisit`) are stored — the embedded SQLite file by
 * default, PostgreSQL with `--database-url` — and counted or listed;
 * spectators' negative ids are not visitors; the store survives a restart.
 */
import { deepEqual } from "node:assert/strict";
import { dropTestDatabase, testDatabaseUrl } from "../src/db/test_db_test_util.ts";
import { startProxy } from "../src/proxy/mod.ts";
import { devToken } from "../src/upstream/mod.ts";
import { memoryLogHub } from "../src/util/log.ts";
import { waitUntil } from "./support/describe.ts";
import { type ProxyHarnessOptions, startProxyHarness } from "./support/proxy.ts";

const PG = Deno.env.get("PM_TEST_DATABASE_URL");

async function visitedScenario(o: ProxyHarnessOptions = {}): Promise<void> {
  const h = await startProxyHarness(o);
  try {
    deepEqual((await h.json("/visited")).body, { count: 0, users: [] });
    await h.login(200);
    await h.login(100);
    await h.login(200);
    const spectator = await h.connect();
    await spectator.gameMonitorAuthenticate(devToken(9));
    await waitUntil(() => h.proxy.link.counts.visits === 4, "visits received");
    deepEqual((await h.json("/visited?count_only=true")).body, { count: 2 });
    deepEqual((await h.json("/visited?count_only=false")).body, {
      count: 2,
      users: [{ game_id: 100 }, { game_id: 200 }],
    });
    deepEqual((await h.json("/visited?count_only=1")).body, { count: 2 });
    const bad = await h.json("/visited?count_only=maybe");
    deepEqual([bad.status, bad.body], [400, { error: "invalid count_only: expected true or false", code: 400 }]);

    // The store outlives the proxy: a new proxy on the same store still counts them.
    await h.proxy.close();
    const again = await startProxy(h.options, { clock: h.clock, logs: memoryLogHub(), fetch: h.dev.fetch });
    try {
      deepEqual(await (await again.request("/visited")).json(), {
        count: 2,
        users: [{ game_id: 100 }, { game_id: 200 }],
      });
    } finally {
      await again.close();
    }
  } finally {
    await h.close();
  }
}

Deno.test("proxy /visited on the embedded store: counts and lists visitors, survives a restart", () =>
  visitedScenario());

Deno.test({
  name: "proxy /visited on PostgreSQL (--database-url)",
  ignore: !PG,
  async fn() {
    const url = testDatabaseUrl(PG!, "proxy_visited");
    try {
      await visitedScenario({ proxy: { databaseUrl: url } });
    } finally {
      await dropTestDatabase(url);
    }
  },
});
if (!PG) console.log("proxy /visited on PostgreSQL skipped: PM_TEST_DATABASE_URL is not set");
