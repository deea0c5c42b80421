/**
 * The console and OpenUDS over the real durable store (issues 5 and 7): the
 * persistence layer's `Persistence` object plugs into the console as it is,
 * and the history, playtime, journal and `persist.*` commands read from it.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createRegistry } from "../src/console/mod.ts";
import { closeOps, createOps, type PersistenceQueries } from "../src/ops/mod.ts";
import { defaultConfig } from "../src/config/mod.ts";
import { type Persistence, SCHEMA_VERSION } from "../src/persistence/mod.ts";
import { startOpenUds } from "../src/uds/mod.ts";
import { dataDirs, startStack } from "./support/persistence_stack.ts";
import { UdsClient } from "./support/uds.ts";

const dirs = dataDirs();

/** Compile-time check: the persistence layer satisfies the console's interface without an adapter. */
export function plugsIn(p: Persistence): PersistenceQueries {
  return p;
}

Deno.test("console and OpenUDS read rounds, visits, playtime, telemetry and the journal from the store", async () => {
  const s = await startStack({ dataDir: await dirs.fresh(), config: { heartbeat_timeout: 3600 } });
  const ops = createOps({
    server: s.server,
    shutdown: () => {},
    logs: s.logs,
    persistence: s.persistence,
    schemaVersion: SCHEMA_VERSION,
  });
  const registry = createRegistry(ops);
  const run = async (line: string) => (await registry.run(line, { kind: "console" })).lines;
  const alice = await s.login(100);
  const mon = await s.login(9);
  await alice.createRoom("abc");
  await mon.joinRoom("abc", true);
  await alice.selectChart(7);
  await alice.requestStart();
  await mon.ready();
  alice.touches([{ time: 1, points: [[0, { x: 0.5, y: 0.5 }]] }]);
  await alice.played(100001);
  s.clock.advance(60_000);
  await s.persistence.flush();

  const history = await run("room history abc");
  equal(history[0], "rounds of abc:");
  match(history[1]!, /^round \S+ {2}chart 7 "Lucky Seven" {2}2026-01-01 00:00:00Z {2}1 results$/);
  equal(history[2], "  #1 Alice(100)  1000000  acc 100.00%  928/0/0/0  combo 928 FC");
  deepEqual((await run("room round abc 1")).slice(0, 2), history.slice(1, 3));
  deepEqual(await run("rh 100"), ["rooms of user 100:", "  abc  joined 2026-01-01 00:00:00Z  still inside"]);
  match((await run("playtime 100"))[0]!, /^user 100: 1m 00s in rooms$/);
  deepEqual((await run("ip-history 100")).map((l) => l.split("  ")[0]), ["127.0.0.1"]);
  // Issue 15: with a store the answers above come from it; no per-player copy is kept in memory.
  equal(ops.context.visits, null);
  const wal = await run("wal inspect");
  equal(wal[0], "journal:");
  ok(wal.some((l) => l.startsWith("  applied_seq: ")), wal.join("\n"));
  deepEqual(await run("dead-letter list"), ["no dead letters"]);
  deepEqual(await run("dead-letter replay"), ["replayed 0; 0 failed again and stay"]);
  const runtime = await run("runtime");
  ok(runtime.includes(`  version: ${SCHEMA_VERSION}`));
  ok(runtime.includes("  store_up: true"), runtime.join("\n"));

  const dir = await Deno.makeTempDir({ prefix: "chorus-uds-" });
  const config = { ...defaultConfig().openuds, enabled: true, socket_path: `${dir}/s.sock`, auth_token: "t0ken" };
  const uds = await startOpenUds({ ops, config, logs: s.logs });
  const client = new UdsClient(await Deno.connect({ transport: "unix", path: config.socket_path }));
  await client.send({ type: "authenticate", token: "t0ken" });
  await client.next((f) => f.type === "authenticated");
  const touches = await client.ok("persist.touches", { player_id: 100 }) as { items: { player_id: number }[] };
  deepEqual(touches.items.map((b) => b.player_id), [100]);
  const rounds = await client.ok("room.history", { room_id: "abc" }) as { source: string; rounds: unknown[] };
  equal(rounds.source, "persistence");
  equal(rounds.rounds.length, 1);
  const persisted = await client.ok("runtime.persistence") as Record<string, unknown>;
  equal(persisted.enabled, true);
  equal(persisted.store_up, true);
  // The store-backed `api-call` operations, positionally as a plugin calls them.
  const plugin = { kind: "plugin", id: "stats" } as const;
  const round = rounds.rounds[0] as { round_id: string };
  const data = await ops.call("round.data", [round.round_id], plugin) as { source: string; chart_id: number };
  deepEqual([data.source, data.chart_id], ["persistence", 7]);
  equal(
    (await ops.tryCall("round.data", ["no-such-round"], plugin) as { ok: false; error: { code: string } }).error.code,
    "NOT_FOUND",
  );
  const events = await ops.call("persist.events", [0, 1000, "room.created"], plugin) as {
    items: { room_id: string }[];
  };
  deepEqual(events.items.map((e) => e.room_id), ["abc"]);
  // Alice and the monitor logged in.
  deepEqual(await ops.call("auth.visited_count", [], plugin), { count: 2, source: "persistence" });
  deepEqual(await client.ok("benchmark.history"), { runs: [], count: 0 });
  await client.close();
  await uds.close();
  await Deno.remove(dir, { recursive: true });
  registry.close();
  closeOps(ops);
  await s.close();
});

Deno.test("persistence data directories are cleaned up", async () => {
  await dirs.cleanup();
});
