/**
 * IP history per user (spec 3 §2.2; issue 4 "People and limits"), used for
 * review and IP bans. The persistence layer provides the durable source;
 * {@link MemoryIpHistory} keeps recent addresses for the life of the process.
 *
 * @module
 */

import type { EventBus } from "../events/mod.ts";

/** One address a user connected from. */
export interface IpRecord {
  readonly ip: string;
  readonly first_seen_at: number;
  readonly last_seen_at: number;
  readonly use_count: number;
}

/** Where IP history comes from. */
export interface IpHistorySource {
  history(userId: number): IpRecord[];
}

/** Addresses from `user.online` events; bounded per user and in users. */
export class MemoryIpHistory implements IpHistorySource {
  readonly #users = new Map<number, Map<string, IpRecord>>();
  readonly #stop: () => void;

  constructor(bus: EventBus, readonly maxUsers = 100_000, readonly perUser = 16) {
    this.#stop = bus.listen((e) => {
      if (e.kind === "user.online" && e.ip) this.record(e.user, e.ip, e.time);
    });
  }

  /** Stops listening. */
  close(): void {
    this.#stop();
  }

  /** Notes that `userId` connected from `ip` at `at`. */
  record(userId: number, ip: string, at: number): void {
    let ips = this.#users.get(userId);
    if (ips) this.#users.delete(userId);
    else ips = new Map();
    this.#users.set(userId, ips);
    const prev = ips.get(ip);
    ips.delete(ip);
    ips.set(ip, {
      ip,
      first_seen_at: prev?.first_seen_at ?? at,
      last_seen_at: at,
      use_count: (prev?.use_count ?? 0) + 1,
    });
    while (ips.size > this.perUser) ips.delete(ips.keys().next().value!);
    while (this.#users.size > this.maxUsers) this.#users.delete(this.#users.keys().next().value!);
  }

  history(userId: number): IpRecord[] {
    return [...(this.#users.get(userId)?.values() ?? [])].sort((a, b) => b.last_seen_at - a.last_seen_at);
  }
}
