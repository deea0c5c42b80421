/**
 * Operator actions on users (kick, bans, broadcasts) and, through
 * {@link Admin.roomOps}, on rooms: the server-side path the operations layer
 * (`src/ops`) uses for every operator front end (HTTP admin panel, console,
 * in-game console, local socket, plugins). Room changes go through the same
 * room transitions as player commands, so room members see exactly what they
 * would see if the affected player had acted.
 *
 * @module
 */

import type { LocalText } from "../l10n/mod.ts";
import { canonicalIp } from "../net/mod.ts";
import type { Room } from "../room/mod.ts";
import { AdminRooms } from "./admin_rooms.ts";
import type { ServerCore, User } from "./core.ts";

/** Operator actions on the live server. */
export class Admin {
  readonly #core: ServerCore;
  /** Room operations (create-empty, start, host, flags, room bans, force-move, ...). */
  readonly roomOps: AdminRooms;

  constructor(core: ServerCore) {
    this.#core = core;
    this.roomOps = new AdminRooms(core);
  }

  /** All rooms, hidden ones included, in creation order. */
  rooms(): Room[] {
    return [...this.#core.rooms.values()];
  }

  /** One room by id. */
  room(id: string): Room | undefined {
    return this.#core.rooms.get(id);
  }

  /** A known user (online or dangling). */
  user(id: number): User | undefined {
    return this.#core.users.get(id);
  }

  /** Users with a live session. */
  onlineUsers(): User[] {
    return this.#core.onlineUsers();
  }

  /**
   * Disconnects a user: a localized notice, out of their room, then the
   * connection closes once the notice is written.
   */
  kickUser(userId: number, reason = ""): boolean {
    const core = this.#core;
    const user = core.users.get(userId);
    if (!user) return false;
    core.sendText([userId], { key: "kicked-by-admin", args: { reason: reason ? `: ${reason}` : "" } });
    this.#disconnect(user, "kick");
    return true;
  }

  /** Bans a user id (and disconnects them, with the localized reason, when online). */
  banUser(userId: number, reason = ""): void {
    const core = this.#core;
    core.bans.banUser({ user_id: userId, reason, banned_at: core.ctx.clock.now() });
    core.authCache.forgetUser(userId);
    const user = core.users.get(userId);
    if (!user) return;
    core.sendText([userId], banNotice(reason));
    this.#disconnect(user, "banned");
  }

  /** Bans an address; online users connected from it are disconnected. Returns how many. */
  banIp(address: string, reason = ""): number {
    const core = this.#core;
    // Sessions carry canonical addresses: `2001:db8:0::5` must ban `2001:db8::5`.
    const ip = canonicalIp(address) ?? address;
    core.bans.banIp({ ip, reason, banned_at: core.ctx.clock.now() });
    const hit = [...core.sessions].filter((s) => s.ip === ip && s.userId !== null).map((s) =>
      core.users.get(s.userId!)
    );
    for (const user of hit) {
      if (!user) continue;
      core.sendText([user.id], banNotice(reason));
      this.#disconnect(user, "banned");
    }
    return hit.length;
  }

  /** Lifts an address ban. */
  unbanIp(ip: string): boolean {
    return this.#core.bans.unbanIp(canonicalIp(ip) ?? ip);
  }

  /** Lifts a user ban. */
  unbanUser(userId: number): boolean {
    return this.#core.bans.unbanUser(userId);
  }

  /** Sends a system message to every online user; returns how many got it. */
  broadcastAll(message: string): number {
    const ids = this.onlineUsers().map((u) => u.id);
    this.#core.sendText(ids, { key: "broadcast-prefix", args: { message } });
    return ids.length;
  }

  /** Sends a system message to a room's members; null when the room does not exist. */
  broadcastRoom(roomId: string, message: string): number | null {
    const room = this.#core.rooms.get(roomId);
    if (!room) return null;
    const ids = [...room.players, ...room.monitors].map((m) => m.id);
    this.#core.sendText(ids, { key: "broadcast-prefix", args: { message } });
    return ids.length;
  }

  /** Sends a system message to one user; false when they are not online. */
  broadcastUser(userId: number, message: string): boolean {
    const user = this.#core.users.get(userId);
    if (!user?.session) return false;
    this.#core.sendText([userId], { key: "broadcast-prefix", args: { message } });
    return true;
  }

  #disconnect(user: User, why: "kick" | "banned"): void {
    const core = this.#core;
    core.removeFromRoom(user, why);
    const session = user.session;
    core.bindSession(user, null);
    core.users.delete(user.id);
    clearDangle(core, user);
    if (session) {
      core.ctx.bus.publish({ kind: "user.offline", user: user.id, name: user.name });
      session.userId = null;
      void session.closeAfterFlush(session.outbound.enqueuedSeq, "kicked");
    }
  }
}

function clearDangle(core: ServerCore, user: User): void {
  core.ctx.clock.clearTimeout(user.dangle);
  user.dangle = undefined;
}

/** The localized ban notice, with the default reason when none was given. */
export function banNotice(reason: string): LocalText {
  return reason ? { key: "auth-banned", args: { reason } } : { key: "auth-banned-default" };
}
