/**
 * Commands handled, by kind (`chorus_commands_total{kind}`): one link of the
 * command pipeline (attached from outside the core, like the in-game
 * console) that adds one to the command's count and passes it on. Its cost
 * is one map update per command, the same whatever the number of sessions
 * (BENCHMARKS.md "Metrics"). Commands refused by a guard (unauthenticated,
 * rate-limited, late) are counted by the server's own counters instead.
 *
 * @module
 */

import type { CommandLink } from "../server/mod.ts";

/** Counts the commands that pass the pipeline's guards, by kind. */
export class CommandCounter {
  readonly #counts = new Map<string, number>();

  /** The pipeline link: `server.commands.use(counter.link)`. */
  readonly link: CommandLink = (cc, next) => {
    const kind = cc.cmd.type;
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
    return next();
  };

  /** Counts so far, by command kind. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }
}
