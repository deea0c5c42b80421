/**
 * Cost of the command pipeline per command (BENCHMARKS.md "Command
 * pipeline"): a `Touches` of an Active player outside any room — the
 * busiest command, whose handler does almost nothing here — dispatched
 * with no veto hook, one empty hook and four, so the difference is the
 * seam's own overhead.
 *
 *   deno bench --allow-all src/server/pipeline_bench.ts
 *
 * @module
 */

import { defaultConfig } from "../config/mod.ts";
import { EventBus } from "../events/mod.ts";
import type { Inbound, Transport } from "../session/session.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { SeededRandom } from "../util/random.ts";
import { dispatch } from "./commands.ts";
import type { UpstreamApi } from "./context.ts";
import { upsertUser } from "./presence.ts";
import { GameServer } from "./server.ts";

const idle: Transport = {
  read: () => new Promise(() => {}),
  write: (p) => Promise.resolve(p.length),
  close: () => {},
};

function setup(hooks: number) {
  const clock = new ManualClock();
  const server = new GameServer({
    config: defaultConfig(),
    clock,
    random: new SeededRandom(1),
    log: new LogHub({ level: "error", sink: () => {} }).logger(),
    upstream: {} as UpstreamApi,
    bus: new EventBus(() => clock.now()),
  });
  for (let i = 0; i < hooks; i++) server.commands.beforeCommand(() => null);
  const session = server.attach(idle, "127.0.0.1")!;
  session.login.begin();
  session.activate("normal", 100);
  const user = upsertUser(server.core, 100, "Alice", "en-US", "normal");
  server.core.bindSession(user, session);
  const inbound: Inbound = {
    cmd: { type: "Touches", frames: [{ time: 1, points: [] }] },
    raw: new Uint8Array(0),
    receivedAt: clock.monotonic(),
  };
  return () => dispatch(server.core, server.commands, session, inbound);
}

for (const hooks of [0, 1, 4]) {
  const run = setup(hooks);
  Deno.bench(`dispatch Touches, ${hooks} empty veto hook${hooks === 1 ? "" : "s"}`, {
    group: "pipeline",
    baseline: hooks === 0,
  }, async () => {
    await run();
  });
}
