/**
 * Cost of the metrics (BENCHMARKS.md "Metrics"): one `/metrics` scrape of a
 * server holding 1,000 sessions (logged-in users) and 100 rooms, with and
 * without the process metrics; and the per-command cost of the command
 * counter link, on the busiest command (`Touches`), against the bare
 * pipeline.
 *
 *   deno bench --allow-all src/metrics/metrics_bench.ts
 *
 * @module
 */

import { defaultConfig } from "../config/mod.ts";
import { EventBus } from "../events/mod.ts";
import { createOps } from "../ops/mod.ts";
import { GameServer } from "../server/mod.ts";
import { dispatch } from "../server/commands.ts";
import type { UpstreamApi } from "../server/context.ts";
import { upsertUser } from "../server/presence.ts";
import type { Inbound, Transport } from "../session/session.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { SeededRandom } from "../util/random.ts";
import { CommandCounter } from "./command_counter.ts";
import { ServerMetrics } from "./server_metrics.ts";

const idle: Transport = {
  read: () => new Promise(() => {}),
  write: (p) => Promise.resolve(p.length),
  close: () => {},
};

async function server(sessions: number, rooms: number): Promise<GameServer> {
  const clock = new ManualClock();
  const s = new GameServer({
    config: { ...defaultConfig(), max_sessions: sessions + 16 },
    clock,
    random: new SeededRandom(1),
    log: new LogHub({ level: "error", sink: () => {} }).logger(),
    upstream: {} as UpstreamApi,
    bus: new EventBus(() => clock.now()),
  });
  for (let i = 1; i <= sessions; i++) {
    const session = s.attach(idle, "127.0.0.1")!;
    session.login.begin();
    session.activate("normal", i);
    s.core.bindSession(upsertUser(s.core, i, `Player${i}`, "en-US", "normal"), session);
  }
  // Rooms through the operations layer, the one operator path.
  const ops = createOps({ server: s });
  for (let i = 0; i < rooms; i++) {
    await ops.call("room.create", { room_id: `room-${i}` }, { kind: "system", component: "bench" });
  }
  return s;
}

const big = await server(1000, 100);
const withProcess = new ServerMetrics({ core: big.core, version: "bench" });
const chorusOnly = new ServerMetrics({ core: big.core, version: "bench" }, { processMetrics: false });
const bytes = (await withProcess.render()).length;

Deno.bench(
  `/metrics scrape, 1000 sessions, 100 rooms (${bytes} bytes)`,
  { group: "scrape", baseline: true },
  async () => {
    await withProcess.render();
  },
);
Deno.bench("/metrics scrape, chorus metrics only", { group: "scrape" }, async () => {
  await chorusOnly.render();
});

async function touches(counted: boolean) {
  const s = await server(1, 0);
  if (counted) s.commands.use(new CommandCounter().link);
  const session = [...s.core.sessions][0]!;
  const inbound: Inbound = {
    cmd: { type: "Touches", frames: [{ time: 1, points: [] }] },
    raw: new Uint8Array(0),
    receivedAt: 0,
  };
  return () => dispatch(s.core, s.commands, session, inbound);
}

for (const counted of [false, true]) {
  const run = await touches(counted);
  Deno.bench(`dispatch Touches${counted ? " with the command counter" : ""}`, {
    group: "pipeline",
    baseline: !counted,
  }, async () => {
    await run();
  });
}
