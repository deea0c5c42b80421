/**
 * Room bans of legacy mode (`phira.ban_room_user`, console `banroom`,
 * `POST /admin/ban/room`): a user id refused by a room id, whether the room
 * exists now or is created later -- the lua-cpp and tphira model
 * (`bannedRoomUsers` in `admin_data.json`). Kept durably; enforced on
 * `JoinRoom` by legacy mode's command hook, and mirrored into the room's own
 * ban list while the room exists (which takes a banned member out).
 *
 * @module
 */

import type { SettingsStore } from "./settings.ts";

const KEY = "legacy.room_bans";
/** Bound on stored bans: a runaway script must not grow the settings without end. */
export const MAX_ROOM_BANS = 100_000;

/** Room id -> banned user ids. */
export type RoomBanMap = Record<string, number[]>;

/** The durable room bans. */
export class RoomBans {
  readonly #settings: SettingsStore;
  readonly #bans = new Map<string, Set<number>>();
  #count = 0;

  constructor(settings: SettingsStore) {
    this.#settings = settings;
    const saved = settings.get(KEY);
    if (saved && typeof saved === "object" && !Array.isArray(saved)) {
      for (const [room, ids] of Object.entries(saved as Record<string, unknown>)) {
        if (!Array.isArray(ids)) continue;
        for (const id of ids) if (Number.isInteger(id)) this.#add(room, id as number);
      }
    }
  }

  /** True when `userId` may not join `roomId`. */
  has(roomId: string, userId: number): boolean {
    return this.#bans.get(roomId)?.has(userId) ?? false;
  }

  /** Bans; false when it already was (or the bound is reached: see {@link MAX_ROOM_BANS}). */
  add(roomId: string, userId: number): boolean {
    if (this.has(roomId, userId) || this.#count >= MAX_ROOM_BANS) return false;
    this.#add(roomId, userId);
    this.#save();
    return true;
  }

  /** Lifts a ban; false when there was none. */
  remove(roomId: string, userId: number): boolean {
    const set = this.#bans.get(roomId);
    if (!set?.delete(userId)) return false;
    this.#count--;
    if (!set.size) this.#bans.delete(roomId);
    this.#save();
    return true;
  }

  /** Users banned from one room, ascending. */
  of(roomId: string): number[] {
    return [...(this.#bans.get(roomId) ?? [])].sort((a, b) => a - b);
  }

  /** Every ban. */
  all(): RoomBanMap {
    const out: RoomBanMap = {};
    for (const room of [...this.#bans.keys()].sort()) out[room] = this.of(room);
    return out;
  }

  #add(roomId: string, userId: number): void {
    let set = this.#bans.get(roomId);
    if (!set) this.#bans.set(roomId, set = new Set());
    if (!set.has(userId)) {
      set.add(userId);
      this.#count++;
    }
  }

  #save(): void {
    this.#settings.set(KEY, this.all());
  }
}
