/**
 * The legacy console's command registry: the main console's registry (same
 * line editor, history, completion, `cli.execute`), answering an unknown
 * command the way the lua-cpp console did. The legacy commands themselves
 * (`console.ts`) are added once legacy mode's context exists.
 *
 * @module
 */

import { type CommandOutcome, ConsoleRegistry } from "../src/console/mod.ts";
import { opCommands } from "../src/console/cmd_op.ts";
import type { Actor, ServerOps } from "../src/ops/mod.ts";

/** The registry of the legacy console. */
export class LegacyRegistry extends ConsoleRegistry {
  override async run(line: string, actor: Actor): Promise<CommandOutcome> {
    const out = await super.run(line, actor);
    const words = line.trim().split(/\s+/).filter((w) => w);
    if (!out.ok && out.code === "UNKNOWN_COMMAND" && words.length && this.resolve(words) === null) {
      return { ...out, lines: [`Unknown command: ${words[0]}`, "Type 'help' for available commands"] };
    }
    return out;
  }
}

/** A legacy registry with `op` and `ops`. */
export function createLegacyRegistry(ops: ServerOps): LegacyRegistry {
  const registry = new LegacyRegistry(ops);
  for (const spec of opCommands(ops)) registry.register(spec);
  return registry;
}
