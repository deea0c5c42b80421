/**
 * Presence (spec 3 §2.2, §4.1): user records are made or refreshed when a
 * login binds them, and what happens to a user when their connection ends. A user whose current session closes goes offline and
 * dangles: in a room they keep their place for `dangle_grace` (in a Playing
 * room `playing_reconnect_grace`) and leave if they do not log in again in
 * time; outside any room they are forgotten at once (issue 3 "Heartbeat").
 * A login in flight (spec 3 §3.2) decides for itself: it takes over, or its
 * rollback lets the user dangle.
 *
 * @module
 */

import { resolveLocale } from "../l10n/mod.ts";
import type { UserInfo } from "../protocol/mod.ts";
import type { Session, SessionCategory } from "../session/session.ts";
import type { ServerCore, User } from "./core.ts";

/** Wire identity of a user. */
export function userInfo(user: User): UserInfo {
  return { id: user.id, name: user.name, monitor: user.monitor };
}

/** Creates or refreshes a user record from an identity (a login binding it). */
export function upsertUser(
  core: ServerCore,
  id: number,
  name: string,
  language: string,
  category: SessionCategory,
): User {
  let user = core.users.get(id);
  if (!user) {
    user = {
      id,
      name,
      language,
      locale: resolveLocale(language),
      category,
      roomId: null,
      monitor: false,
      session: null,
      pending: null,
      dangle: undefined,
      firstSeen: core.ctx.clock.now(),
    };
    core.users.set(id, user);
  } else {
    user.name = name;
    user.language = language;
    user.locale = resolveLocale(language);
    core.setCategory(user, category);
  }
  return user;
}

/** A session closed: if it was its user's current one, the user goes offline and dangles. */
export function sessionClosed(core: ServerCore, session: Session): void {
  core.sessions.delete(session);
  if (session.userId === null) return;
  const user = core.users.get(session.userId);
  if (!user || user.session !== session) return;
  core.bindSession(user, null);
  core.ctx.bus.publish({ kind: "user.offline", user: user.id, name: user.name });
  // A login in flight decides what follows (spec 3 §3.2): it takes over, or its rollback calls `dangle`.
  if (user.pending) return;
  dangle(core, user);
}

/** A user without a connection dangles in their room for the grace, or is forgotten when in none. */
export function dangle(core: ServerCore, user: User): void {
  const room = core.roomOf(user);
  if (!room) {
    core.users.delete(user.id);
    return;
  }
  if (core.shuttingDown) return;
  const { config, clock, log } = core.ctx;
  const graceSecs = room.phase.kind === "play" ? config.playing_reconnect_grace : config.dangle_grace;
  log.info("user dangling", { user: user.id, room: room.id, grace_s: graceSecs });
  user.dangle = clock.setTimeout(() => {
    user.dangle = undefined;
    if (user.session || core.users.get(user.id) !== user) return;
    log.info("dangling user did not come back, leaving room", { user: user.id, room: user.roomId ?? "" });
    core.removeFromRoom(user, "disconnect");
    core.users.delete(user.id);
  }, graceSecs * 1000);
}
