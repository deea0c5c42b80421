/**
 * The server's view of a user (spec 3 §2.2): who they are, where they are,
 * and which connection is theirs now. Features keep their own per-user state
 * (keyed by the `User` object, so it goes with the record), never as fields
 * here.
 *
 * @module
 */

import type { Locale } from "../l10n/mod.ts";
import type { Session, SessionCategory } from "../session/session.ts";
import type { TimerHandle } from "../util/clock.ts";

/** An authenticated user, online or dangling (spec 3 §2.2). */
export interface User {
  /** Game user id; negative for game-monitor sessions. */
  readonly id: number;
  name: string;
  language: string;
  locale: Locale;
  category: SessionCategory;
  /** Current room id, or null. */
  roomId: string | null;
  /** Monitor flag of the current membership. */
  monitor: boolean;
  /** Current session (the binding); null while dangling. */
  session: Session | null;
  /**
   * A new connection whose login is journaled and answered but not yet
   * flushed (spec 3 §3.2 DurableAccepted/ResponseFlushed): it receives the
   * user's frames into its gate and takes over only once Active.
   */
  pending: Session | null;
  /** Grace timer while dangling. */
  dangle: TimerHandle | undefined;
  readonly firstSeen: number;
}
