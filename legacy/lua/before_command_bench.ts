/**
 * Cost of a Lua `on_before_command` hook (BENCHMARKS.md "Legacy mode"): the
 * dispatch of one `Touches` of a player in a room of 8 — the command every
 * player sends about 2.6 times a second while playing (21 a second for the
 * room) — through the command pipeline, without a Lua hook, with a hook
 * that lets telemetry through at once (the common shape), and with a hook
 * that does a little bookkeeping per command.
 *
 *   deno bench --allow-all legacy/lua/before_command_bench.ts
 *
 * @module
 */

import { join } from "node:path";
import { defaultConfig } from "../../src/config/mod.ts";
import { ConsoleLogSink } from "../../src/console/mod.ts";
import { EventBus } from "../../src/events/mod.ts";
import { createOps } from "../../src/ops/mod.ts";
import { joinRoom } from "../../src/room/mod.ts";
import { dispatch } from "../../src/server/commands.ts";
import type { UpstreamApi } from "../../src/server/mod.ts";
import { upsertUser } from "../../src/server/presence.ts";
import { GameServer } from "../../src/server/mod.ts";
import type { Inbound, Session, Transport } from "../../src/session/session.ts";
import { ManualClock } from "../../src/util/clock.ts";
import { LogHub } from "../../src/util/log.ts";
import { SeededRandom } from "../../src/util/random.ts";
import { attachLegacy } from "../app.ts";
import { createLegacyRegistry } from "../console_registry.ts";
import { MemorySettings } from "../state/settings.ts";

/** The hook variants measured. */
export const HOOKS: Record<string, string | null> = {
  "no Lua hook": null,
  "hook returning at once for telemetry": `
function on_before_command(user, kind, data)
  if kind == "touches" or kind == "judges" then return end
  if kind == "chat" and data.message:find("badword", 1, true) then return false end
end`,
  "hook counting commands per user": `
local counts = {}
function on_before_command(user, kind, data)
  local key = user.id .. ":" .. kind
  counts[key] = (counts[key] or 0) + 1
  if kind == "chat" and data.message:find("badword", 1, true) then return false end
end`,
};

const idle: Transport = { read: () => new Promise(() => {}), write: (p) => Promise.resolve(p.length), close: () => {} };

/** A server with 8 players in one room and legacy mode with `lua` as the plugin; returns one dispatch of a Touches. */
export async function setup(lua: string | null): Promise<() => void | Promise<void>> {
  const dir = await Deno.makeTempDir({ prefix: "lua_bench_" });
  if (lua) {
    await Deno.mkdir(join(dir, "bench"));
    await Deno.writeTextFile(join(dir, "bench", "plugin.json"), JSON.stringify({ id: "bench" }));
    await Deno.writeTextFile(join(dir, "bench", "init.lua"), lua);
  }
  const clock = new ManualClock();
  const logs = new LogHub({ level: "error", sink: () => {} });
  const config = { ...defaultConfig(), data_dir: join(dir, "data") };
  const server = new GameServer({
    config,
    clock,
    random: new SeededRandom(1),
    log: logs.logger(),
    upstream: {} as UpstreamApi,
    bus: new EventBus(() => clock.now()),
  });
  const ops = createOps({ server, shutdown: () => {}, logs });
  await attachLegacy({
    ops,
    logs,
    config,
    clock,
    registry: createLegacyRegistry(ops),
    consoleSink: new ConsoleLogSink({ writeSync: (b: Uint8Array) => b.length }),
    consoleShown: false,
  }, { roots: [{ path: dir, builtin: false }], settings: new MemorySettings(), cwd: dir, listen: false });
  await ops.call("room.create", { room_id: "bench" }, { kind: "console" });
  const sessions: Session[] = [];
  for (let id = 1; id <= 8; id++) {
    const session = server.attach(idle, "127.0.0.1")!;
    session.login.begin();
    session.activate("normal", id);
    const user = upsertUser(server.core, id, `P${id}`, "en-US", "normal");
    server.core.bindSession(user, session);
    const room = server.core.rooms.get("bench")!;
    server.core.apply(
      "bench",
      joinRoom(room, { id, name: `P${id}`, monitor: false }, server.core.roomCtx(), { canMonitor: false }),
      null,
    );
    sessions.push(session);
  }
  const inbound: Inbound = {
    cmd: { type: "Touches", frames: [{ time: 1, points: [[0, { x: 0.5, y: 0.5 }]] }] },
    raw: new Uint8Array([3, 1, 0, 0, 128, 63, 1, 0, 0, 56, 0, 56]),
    receivedAt: clock.monotonic(),
  };
  let i = 0;
  return () => dispatch(server.core, server.commands, sessions[i++ % 8]!, inbound);
}

for (const [name, lua] of Object.entries(HOOKS)) {
  const run = await setup(lua);
  Deno.bench(`Touches in a room of 8, ${name}`, { group: "lua-hook", baseline: lua === null }, async () => {
    await run();
  });
}
