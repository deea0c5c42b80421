/**
 * Moments the Lua hooks `on_user_kick`, `on_user_ban` and `on_user_unban`
 * are named after (spec 3 §4.8) that the event bus does not carry: legacy
 * mode wraps the `player.kick`, `player.ban` and `player.unban` operations
 * (every surface -- console, OpenUDS, admin HTTP, plugins -- goes through
 * them) and announces each success here, with the user and room as they
 * were just before.
 *
 * @module
 */

import type { LuaRoom, LuaUser } from "./views.ts";

/** A kick, ban or unban that happened. */
export type ModerationEvent =
  | { readonly kind: "kick"; readonly user: LuaUser; readonly room: LuaRoom | null; readonly reason: string }
  | { readonly kind: "ban"; readonly user: LuaUser; readonly reason: string; readonly duration: number }
  | { readonly kind: "unban"; readonly userId: number };

/** Listeners of moderation events. */
export class ModerationEvents {
  readonly #listeners = new Set<(event: ModerationEvent) => void>();

  /** Adds a listener; returns its remover. */
  listen(fn: (event: ModerationEvent) => void): () => void {
    this.#listeners.add(fn);
    return () => void this.#listeners.delete(fn);
  }

  /** Tells every listener; a listener's failure does not stop the others. */
  emit(event: ModerationEvent): void {
    for (const fn of this.#listeners) {
      try {
        fn(event);
      } catch {
        // Listeners log their own failures.
      }
    }
  }
}
