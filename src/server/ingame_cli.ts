/**
 * The in-game console (spec 3 §4.2; issue 7): an administrator creates a room
 * whose name is `_` plus a console command with spaces written as `_` (`__`
 * is a literal `_`). The command runs instead of creating a room, its output
 * comes back to that user only as system chat lines prefixed `[CLI]`, and the
 * `CreateRoom` reply is an error so no room appears. Room names are at most
 * 20 characters, so a line ending with `--` is held and continued by the
 * next one that starts with `--`.
 *
 * It is a feature link of the command pipeline, attached from outside
 * (`server.commands.use(inGameConsole(runner))`), and keeps the held
 * first parts itself, per user.
 *
 * @module
 */

import type { CommandContext } from "./command_context.ts";
import { type ServerCore, SYSTEM_USER, type User } from "./core.ts";
import type { CommandLink } from "./pipeline.ts";

/** Runs console command lines for the in-game console (the console's command registry). */
export interface ConsoleRunner {
  /** Runs one command line as `actor`; resolves with the output lines. */
  execute(
    line: string,
    actor: { readonly kind: "in-game"; readonly userId: number; readonly name: string },
  ): Promise<string[]>;
}

/** Marks continuation at the end of one part and the start of the next. */
const CONTINUATION = "--";

/** Decodes a room name into a command: drop the leading `_`, `__` -> `_`, `_` -> space, trim. */
export function decodeCliRoomName(id: string): string {
  return id.slice(1).replace(/__|_/g, (m) => (m === "__" ? "_" : " ")).trim();
}

/**
 * The in-game console as a pipeline link: a `CreateRoom` by an administrator
 * whose name starts with `_` runs `runner` (when `cli_enabled`); every other
 * command goes on.
 */
export function inGameConsole(runner: ConsoleRunner): CommandLink {
  // The first part of a command continued with `--`, per user (gone with the user record).
  const held = new WeakMap<User, string>();
  return (cc, next) => {
    if (cc.cmd.type !== "CreateRoom") return next();
    const core = cc.core;
    const user = cc.user;
    const id = cc.cmd.id;
    // A game monitor may not create rooms at all (protocol.md §3.5): the handler refuses it.
    if (!user || user.category === "game-monitor" || !id.startsWith("_")) return next();
    if (!core.ctx.config.cli_enabled || !core.adminIds.has(user.id)) return next();
    return run(core, cc as CommandContext<"CreateRoom">, user, runner, held);
  };
}

function say(core: ServerCore, user: User, lines: readonly string[]): void {
  for (const line of lines) {
    core.sendTo([user.id], { type: "Message", message: { type: "Chat", user: SYSTEM_USER, content: `[CLI] ${line}` } });
  }
}

/** Runs the in-game console for a `CreateRoom` and answers it with an error. */
async function run(
  core: ServerCore,
  cc: CommandContext<"CreateRoom">,
  user: User,
  runner: ConsoleRunner,
  held: WeakMap<User, string>,
): Promise<void> {
  const part = decodeCliRoomName(cc.cmd.id);
  const pending = held.get(user);
  let line: string;
  if (pending !== undefined) {
    held.delete(user);
    if (!part.startsWith(CONTINUATION)) {
      say(core, user, [`continuation expected: the next part must start with ${CONTINUATION}`]);
      return cc.failText("admin CLI command rejected");
    }
    line = `${pending} ${part.slice(CONTINUATION.length).trim()}`.trim();
  } else line = part;
  if (line.endsWith(CONTINUATION)) {
    held.set(user, line.slice(0, -CONTINUATION.length).trim());
    say(core, user, [`held; continue with a command that starts with ${CONTINUATION}`]);
    return cc.failText("admin CLI command held");
  }
  if (!line) {
    say(core, user, ["empty command"]);
    return cc.failText("admin CLI command rejected");
  }
  core.ctx.log.info("in-game console command", { user: user.id, command: line });
  let output: string[];
  try {
    output = await runner.execute(line, { kind: "in-game", userId: user.id, name: user.name });
  } catch (error) {
    output = [`error: ${error instanceof Error ? error.message : String(error)}`];
  }
  say(core, user, [`> ${line}`, ...output]);
  cc.failText("admin CLI command executed");
}
