/**
 * The command pipeline: every command a session sends (after `Ping`, which
 * the session answers itself) runs through one ordered chain of links, in
 * the style of Hono's `compose`: each link is `(cc, next)` and either
 * answers the command or calls `next()`.
 *
 *   guards (fixed, see `guards.ts`): deadline -> authenticated -> session kind -> binding -> rate limit -> telemetry budget
 *   veto hooks ({@link CommandPipeline.beforeCommand}): extensions may refuse a command with a reason
 *   feature links ({@link CommandPipeline.use}), in the order they were added (the in-game console)
 *   the command's handler (`handlers.ts`)
 *
 * A veto is never silent (spec 3 §4.1 rule 1): the client gets the
 * protocol's error reply for that command with the reason as its text;
 * `Touches` and `Judges`, which have no reply, are dropped. Veto hooks see
 * the commands of Active sessions only (never the authenticate commands),
 * after the rate limit, and must be synchronous and cheap: they run for
 * every command, telemetry included. Observation belongs on the event bus,
 * not here.
 *
 * This is the seam of the Lua `on_before_command(user, type, data)` hook and
 * of the WebAssembly handler interface.
 *
 * @module
 */

import type { ClientCommand, ClientCommandType } from "../protocol/mod.ts";
import type { SessionCategory } from "../session/session.ts";
import type { CommandContext } from "./command_context.ts";

/** Continues with the next link; resolves when the rest of the chain is done. */
export type Next = () => void | Promise<void>;

/** One link of the chain: answer the command (or drop a reply-less one), or call `next()`. */
export type CommandLink = (cc: CommandContext, next: Next) => void | Promise<void>;

/** What a veto hook sees of a command: read-only, built without allocating (the command context itself). */
export interface CommandView {
  /** The command's variant. */
  readonly type: ClientCommandType;
  /** The decoded command (its payload fields). */
  readonly cmd: ClientCommand;
  readonly sessionId: number;
  /** The client's address (the real one behind a trusted proxy). */
  readonly ip: string;
  readonly category: SessionCategory;
  /** The acting user, or null (console and room-monitor sessions have none). */
  readonly userId: number | null;
  readonly userName: string | null;
  /** The user's room, or null. */
  readonly roomId: string | null;
}

/**
 * A veto hook: returns a reason (shown to the client) to refuse the command,
 * or null/undefined to let it through. Synchronous by design: it runs per
 * command. A hook that throws vetoes nothing; the error is logged once per
 * hook name and counted.
 */
export type BeforeCommand = (command: CommandView) => string | null | undefined | void;

interface NamedHook {
  readonly name: string;
  readonly hook: BeforeCommand;
}

/** The ordered chain of one server. */
export class CommandPipeline {
  readonly #guards: readonly CommandLink[];
  readonly #handler: CommandLink;
  #hooks: readonly NamedHook[] = [];
  #features: readonly CommandLink[] = [];
  /** guards + veto stage + features + handler; rebuilt (copy on write) when a link is added or removed. */
  #chain: readonly CommandLink[];
  readonly #failedHooks = new Set<string>();

  /** `guards` run first, in order; `handler` last. */
  constructor(guards: readonly CommandLink[], handler: CommandLink) {
    this.#guards = guards;
    this.#handler = handler;
    this.#chain = this.#build();
  }

  /** Number of veto hooks registered. */
  get hookCount(): number {
    return this.#hooks.length;
  }

  /**
   * Registers a veto hook (extensions: Lua `on_before_command`, WebAssembly
   * handlers). Hooks run in registration order; the first reason wins.
   * Returns a function that removes the hook.
   */
  beforeCommand(hook: BeforeCommand, name = "hook"): () => void {
    const entry = { name, hook };
    this.#hooks = [...this.#hooks, entry];
    this.#chain = this.#build();
    return () => {
      this.#hooks = this.#hooks.filter((h) => h !== entry);
      this.#chain = this.#build();
    };
  }

  /**
   * Adds a feature link after the veto hooks and before the handler (for
   * in-tree features that answer some commands themselves, like the in-game
   * console). Returns a function that removes it.
   */
  use(link: CommandLink): () => void {
    this.#features = [...this.#features, link];
    this.#chain = this.#build();
    return () => {
      this.#features = this.#features.filter((l) => l !== link);
      this.#chain = this.#build();
    };
  }

  /**
   * Runs one command through the chain. A chain in progress keeps the links
   * it started with. Each link runs at most once: `next()` always moves
   * forward, so calling it again after the rest of the chain ran does nothing.
   */
  run(cc: CommandContext): void | Promise<void> {
    const chain = this.#chain;
    let i = 0;
    // One closure per command (not per link): the pipeline runs for every command, telemetry included.
    const next = (): void | Promise<void> => {
      const link = chain[i++];
      return link === undefined ? undefined : link(cc, next);
    };
    return next();
  }

  #build(): readonly CommandLink[] {
    const veto = this.#hooks.length ? [this.#vetoStage] : [];
    return [...this.#guards, ...veto, ...this.#features, this.#handler];
  }

  /** The veto stage: present only while hooks are registered, so an unhooked server pays nothing for it. */
  readonly #vetoStage: CommandLink = (cc, next) => {
    // Authenticate commands and unauthenticated sessions never reach the hooks.
    if (cc.session.state !== "active") return next();
    const hooks = this.#hooks;
    for (let i = 0; i < hooks.length; i++) {
      const { name, hook } = hooks[i]!;
      let reason;
      try {
        reason = hook(cc);
      } catch (error) {
        this.#hookFailed(cc, name, error);
        continue;
      }
      if (typeof reason === "string") return cc.veto(reason, name);
    }
    return next();
  };

  #hookFailed(cc: CommandContext, name: string, error: unknown): void {
    cc.core.counters.inc("command_hook_failures");
    // Once per hook: a hook that always throws would otherwise log on every command.
    if (this.#failedHooks.has(name)) return;
    this.#failedHooks.add(name);
    cc.core.ctx.log.error("command hook failed; the command goes on (later failures are only counted)", {
      hook: name,
      command: cc.cmd.type,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
