/**
 * Ban lists (issue 4 "People and limits"): by user id with a reason, and by
 * IP. Reads are synchronous (they sit on the login path); the durable
 * implementation of the persistence layer keeps the same in-memory view and
 * journals every change.
 *
 * @module
 */

import { canonicalIp } from "../net/cidr.ts";

/** The key of an address: its canonical text, so every spelling of one address matches. */
function ipKey(ip: string): string {
  return canonicalIp(ip) ?? ip;
}

/** A banned user. */
export interface UserBan {
  readonly user_id: number;
  readonly reason: string;
  readonly banned_at: number;
}

/** A banned address. */
export interface IpBan {
  readonly ip: string;
  readonly reason: string;
  readonly banned_at: number;
}

/** Where bans live. */
export interface BanList {
  userBan(userId: number): UserBan | undefined;
  banUser(ban: UserBan): void;
  unbanUser(userId: number): boolean;
  userBans(): UserBan[];
  ipBan(ip: string): IpBan | undefined;
  banIp(ban: IpBan): void;
  unbanIp(ip: string): boolean;
  ipBans(): IpBan[];
}

/** Bans held in memory only (tests, and the base of durable implementations). */
export class MemoryBanList implements BanList {
  readonly #users = new Map<number, UserBan>();
  readonly #ips = new Map<string, IpBan>();

  userBan(userId: number): UserBan | undefined {
    return this.#users.get(userId);
  }
  banUser(ban: UserBan): void {
    this.#users.set(ban.user_id, ban);
  }
  unbanUser(userId: number): boolean {
    return this.#users.delete(userId);
  }
  userBans(): UserBan[] {
    return [...this.#users.values()].sort((a, b) => a.user_id - b.user_id);
  }
  ipBan(ip: string): IpBan | undefined {
    return this.#ips.get(ipKey(ip));
  }
  banIp(ban: IpBan): void {
    const ip = ipKey(ban.ip);
    this.#ips.set(ip, ip === ban.ip ? ban : { ...ban, ip });
  }
  unbanIp(ip: string): boolean {
    return this.#ips.delete(ipKey(ip));
  }
  ipBans(): IpBan[] {
    return [...this.#ips.values()].sort((a, b) => a.ip.localeCompare(b.ip));
  }
}
