/**
 * Builds the registry with every built-in console command (spec 3 §4.2)
 * over the operations layer. `src/app.ts` makes one and hands it to every
 * front end: the terminal console or terminal UI, the in-game console (a
 * link of the command pipeline) and, through the `cli.execute` operation, OpenUDS.
 *
 * @module
 */

import type { OpsServices, ServerOps } from "../ops/mod.ts";
import { journalCommands } from "./cmd_journal.ts";
import { pluginCommands } from "./cmd_plugins.ts";
import { opCommands } from "./cmd_op.ts";
import { roomSetCommand } from "./cmd_room_set.ts";
import { roomCommands } from "./cmd_rooms.ts";
import { serverCommands } from "./cmd_server.ts";
import { updateCommands } from "./cmd_update.ts";
import { userCommands } from "./cmd_users.ts";
import { CommandRegistry } from "./registry.ts";

/** The command registry over one server's operations. */
export class ConsoleRegistry extends CommandRegistry {
  /** The operations the commands call. */
  readonly ops: ServerOps;
  readonly #detach: () => void;

  constructor(ops: ServerOps) {
    const core = ops.context.core;
    super({
      now: () => core.ctx.clock.now(),
      log: core.ctx.log.child({ component: "console" }),
      inputs: ops.context.inputs,
      call: (name, args, actor) => ops.call(name, args, actor),
    });
    this.ops = ops;
    // `cli.execute` (OpenUDS, plugins) runs console lines through this registry.
    this.#detach = ops.context.attachCli({
      run: (line, actor) => this.run(line, actor),
      commandCount: () => this.commands().length,
    });
  }

  /** What the operations reach (the terminal UI's panes read the server through it). */
  get services(): OpsServices {
    return this.ops.context;
  }

  /** Detaches from the operations (`cli.execute` then answers `UNAVAILABLE`). */
  close(): void {
    this.#detach();
  }
}

/** A registry with every built-in command. */
export function createRegistry(ops: ServerOps): ConsoleRegistry {
  const registry = new ConsoleRegistry(ops);
  for (
    const spec of [
      ...serverCommands(),
      ...userCommands(),
      ...roomCommands(),
      roomSetCommand(),
      ...journalCommands(ops.context.deps.benchmark?.usage),
      ...pluginCommands(),
      ...updateCommands(),
      ...opCommands(ops),
    ]
  ) registry.register(spec);
  return registry;
}
