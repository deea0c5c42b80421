/**
 * Builds the registry with every built-in console command (spec 3 §4.2).
 * `main.ts` makes one and hands it to every front end: the terminal console
 * or terminal UI, the in-game console (a link of the command pipeline) and OpenUDS.
 *
 * @module
 */

import { journalCommands } from "./cmd_journal.ts";
import { roomSetCommand } from "./cmd_room_set.ts";
import { roomCommands } from "./cmd_rooms.ts";
import { serverCommands } from "./cmd_server.ts";
import { userCommands } from "./cmd_users.ts";
import type { ConsoleDeps } from "./deps.ts";
import { CommandRegistry } from "./registry.ts";
import { ConsoleServices } from "./services.ts";

/** The command registry with the shared operations behind it. */
export class ConsoleRegistry extends CommandRegistry {
  /** Operations shared with OpenUDS. */
  readonly services: ConsoleServices;

  constructor(deps: ConsoleDeps) {
    const core = deps.server.core;
    super({ now: () => core.ctx.clock.now(), log: core.ctx.log.child({ component: "console" }) });
    this.services = new ConsoleServices(deps);
  }

  /** Stops background bookkeeping (room visits). */
  close(): void {
    this.services.close();
  }
}

/** A registry with every built-in command. */
export function createRegistry(deps: ConsoleDeps): ConsoleRegistry {
  const registry = new ConsoleRegistry(deps);
  const s = registry.services;
  for (
    const spec of [
      ...serverCommands(s),
      ...userCommands(s),
      ...roomCommands(s),
      roomSetCommand(s),
      ...journalCommands(s),
    ]
  ) registry.register(spec);
  return registry;
}
