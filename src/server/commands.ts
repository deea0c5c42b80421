/**
 * Command dispatch: each inbound command of a session runs through the
 * server's {@link CommandPipeline} (guards, veto hooks, feature links,
 * handler), and is guaranteed its reply (spec 3 §4.1 rule 1): a
 * request-type command that leaves the chain unanswered gets an error and
 * counts `silent_response_paths`.
 *
 * @module
 */

import type { Inbound, Session } from "../session/session.ts";
import { CommandContext } from "./command_context.ts";
import type { ServerCore } from "./core.ts";
import { builtinGuards } from "./guards.ts";
import { commandHandlers, type HandlerDeps } from "./handlers.ts";
import { CommandPipeline } from "./pipeline.ts";

/** The command pipeline of one server: the built-in guards and the handler table. */
export function serverPipeline(deps: HandlerDeps): CommandPipeline {
  return new CommandPipeline(builtinGuards(), commandHandlers(deps));
}

/**
 * Runs one inbound command of a session and guarantees its reply. A chain
 * that finished synchronously (telemetry, most room commands) returns
 * nothing: no promise per command (issue 15, garbage per relayed message);
 * one still waiting (the upstream, a plugin) returns its promise.
 */
export function dispatch(
  core: ServerCore,
  pipeline: CommandPipeline,
  session: Session,
  inbound: Inbound,
): Promise<void> | void {
  const cc = new CommandContext(core, session, inbound);
  core.counters.inc("request_received");
  let running: Promise<void> | void;
  try {
    running = pipeline.run(cc);
  } catch (error) {
    ensureReply(core, cc, session);
    throw error;
  }
  if (!running) return ensureReply(core, cc, session);
  return running.then(() => ensureReply(core, cc, session), (error) => {
    ensureReply(core, cc, session);
    throw error;
  });
}

/** A request the chain left unanswered gets an error reply (spec 3 §4.1 rule 1). */
function ensureReply(core: ServerCore, cc: CommandContext, session: Session): void {
  if (cc.replyType && !cc.answered && session.open && session.state !== "failed") {
    core.counters.inc("silent_response_paths");
    core.ctx.log.error("command finished without a reply; sending an error", {
      command: cc.cmd.type,
      session: session.id,
    });
    cc.failText("internal error");
  }
}
