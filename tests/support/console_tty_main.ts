/**
 * A small server with the operator console, for the terminal tests: runs in
 * tmux (`--tui` for the terminal UI) or as a child process with stdin at end
 * of file. Prints `ready <port>` once listening; stops on `exit` or SIGTERM
 * (with `--linger`, the process then waits for SIGHUP before it exits).
 * Test support only (not part of the product).
 *
 * @module
 */

import { connect } from "../../src/client/mod.ts";
import { defaultConfig } from "../../src/config/mod.ts";
import { ConsoleLogSink, createRegistry, startConsole } from "../../src/console/mod.ts";
import { closeOps, createOps } from "../../src/ops/mod.ts";
import { EventBus } from "../../src/events/mod.ts";
import { GameServer, inGameConsole } from "../../src/server/mod.ts";
import { createDevApi, devToken, Upstream } from "../../src/upstream/mod.ts";
import { ManualClock } from "../../src/util/clock.ts";
import { LogHub } from "../../src/util/log.ts";
import { SeededRandom } from "../../src/util/random.ts";

const sink = new ConsoleLogSink();
const logs = new LogHub({ level: "info", sink: sink.write });
const clock = new ManualClock();
const dev = createDevApi({ clock });
const upstream = new Upstream({ baseUrl: "http://dev.upstream", fetch: dev.fetch, clock });
const server = new GameServer({
  config: {
    ...defaultConfig(),
    port: 0 as unknown as number,
    bind_address: "127.0.0.1",
    welcome: { enabled: false, show_time: false, messages: {} },
  },
  clock,
  random: new SeededRandom(1),
  log: logs.logger(),
  upstream,
  bus: new EventBus(() => clock.now()),
});
const { port } = await server.listen();
const alice = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
await alice.authenticate(devToken(100));

const { promise: stopped, resolve: stop } = Promise.withResolvers<string>();
const ops = createOps({ server, shutdown: stop, logs });
const registry = createRegistry(ops);
server.commands.use(inGameConsole(registry));
Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
console.error(`ready ${port}`);
const terminal = startConsole({
  registry,
  tui: Deno.args.includes("--tui"),
  logs,
  logSink: sink,
  log: logs.logger(),
});
const reason = await stopped;
await terminal.close();
await alice.close();
await server.shutdown();
registry.close();
closeOps(ops);
console.log(`stopped: ${reason}`);
if (Deno.args.includes("--linger")) {
  // Under tmux: a pane whose process exits right after writing may lose that output (the pane is marked dead before
  // tmux reads it), so the process stays until tmux hangs up on it, and the test sees the final screen.
  await new Promise<void>((resolve) => Deno.addSignalListener("SIGHUP", resolve));
}
Deno.exit(0);
