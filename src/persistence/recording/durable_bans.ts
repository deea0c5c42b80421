/**
 * Durable ban lists (issue 4 "People and limits", issue 5 "bans"): the same
 * synchronous in-memory view the login path reads, with every change
 * journaled before it takes effect in memory. Loaded from the store at
 * startup.
 *
 * @module
 */

import { type BanList, type IpBan, MemoryBanList, type UserBan } from "../../server/bans.ts";
import type { BanEntry } from "../types.ts";

/** Writes one ban change to the journal; throws when persistence is not open. */
export type BanWriter = (entry: BanEntry) => void;

/** A {@link BanList} whose changes survive restarts. */
export class DurableBanList implements BanList {
  readonly #mem = new MemoryBanList();
  readonly #write: BanWriter;
  readonly #now: () => number;

  constructor(write: BanWriter, now: () => number) {
    this.#write = write;
    this.#now = now;
  }

  /** Replaces the in-memory view with the stored bans (startup). */
  load(users: readonly UserBan[], ips: readonly IpBan[]): void {
    for (const b of this.#mem.userBans()) this.#mem.unbanUser(b.user_id);
    for (const b of this.#mem.ipBans()) this.#mem.unbanIp(b.ip);
    for (const b of users) this.#mem.banUser(b);
    for (const b of ips) this.#mem.banIp(b);
  }

  userBan(userId: number): UserBan | undefined {
    return this.#mem.userBan(userId);
  }
  banUser(ban: UserBan): void {
    this.#write({ t: "ban.user", user: ban.user_id, reason: ban.reason, at: ban.banned_at });
    this.#mem.banUser(ban);
  }
  unbanUser(userId: number): boolean {
    if (!this.#mem.userBan(userId)) return false;
    this.#write({ t: "unban.user", user: userId, at: this.#now() });
    return this.#mem.unbanUser(userId);
  }
  userBans(): UserBan[] {
    return this.#mem.userBans();
  }
  ipBan(ip: string): IpBan | undefined {
    return this.#mem.ipBan(ip);
  }
  banIp(ban: IpBan): void {
    this.#write({ t: "ban.ip", ip: ban.ip, reason: ban.reason, at: ban.banned_at });
    this.#mem.banIp(ban);
  }
  unbanIp(ip: string): boolean {
    if (!this.#mem.ipBan(ip)) return false;
    this.#write({ t: "unban.ip", ip, at: this.#now() });
    return this.#mem.unbanIp(ip);
  }
  ipBans(): IpBan[] {
    return this.#mem.ipBans();
  }
}
