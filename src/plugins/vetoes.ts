/**
 * Command vetoes for plugins (the command pipeline's veto seam): the
 * pipeline asks its veto hooks synchronously for every command, and a plugin
 * answers from another process, so it cannot be asked per command without
 * stalling the game. Instead a plugin declares what to refuse --
 * `api-call("command.veto", [{"user_id": 5, "commands": ["Chat"], "reason":
 * "muted", "ttl_secs": 600}])` -- and the host's one hook checks these rules
 * in memory: per command the cost is the rules of that user and that room.
 * The client gets the protocol's error reply with the reason (reply-less
 * commands are dropped). Rules go when they expire, when removed, or when
 * their plugin stops.
 *
 * @module
 */

import type { CommandView } from "../server/mod.ts";

/** Commands a rule may name (what Active sessions send; login and ping are never vetoed). */
export const VETOABLE_COMMANDS = [
  "Chat",
  "Touches",
  "Judges",
  "CreateRoom",
  "JoinRoom",
  "LeaveRoom",
  "LockRoom",
  "CycleRoom",
  "SelectChart",
  "RequestStart",
  "Ready",
  "CancelReady",
  "Played",
  "Abort",
  "QueryRoomInfo",
] as const;

/** Rules kept in all. */
export const MAX_VETOES = 1024;

/** One rule. */
export interface VetoRule {
  readonly id: number;
  /** The plugin (or operator) that added it. */
  readonly owner: string;
  readonly userId: number | null;
  readonly roomId: string | null;
  /** Command types refused; empty = every vetoable command. */
  readonly commands: readonly string[];
  readonly reason: string;
  /** Unix ms when it ends; null = until removed. */
  readonly until: number | null;
}

/** The rules. */
export class CommandVetoes {
  readonly #byUser = new Map<number, VetoRule[]>();
  readonly #byRoom = new Map<string, VetoRule[]>();
  readonly #byId = new Map<number, VetoRule>();
  #next = 1;

  /** Rules in force. */
  get size(): number {
    return this.#byId.size;
  }

  /** Adds a rule (a user, a room, or a user in a room); throws a RangeError for a bad one or past the limit. */
  add(rule: Omit<VetoRule, "id">, now: number): VetoRule {
    if (rule.userId === null && rule.roomId === null) throw new RangeError("a veto names a user_id, a room_id or both");
    const unknown = rule.commands.find((c) => !(VETOABLE_COMMANDS as readonly string[]).includes(c));
    if (unknown !== undefined) {
      throw new RangeError(`"${unknown}" cannot be vetoed (vetoable: ${VETOABLE_COMMANDS.join(", ")})`);
    }
    this.#expire(now);
    if (this.#byId.size >= MAX_VETOES) throw new RangeError(`at most ${MAX_VETOES} vetoes`);
    const entry: VetoRule = { ...rule, id: this.#next++ };
    this.#byId.set(entry.id, entry);
    if (entry.userId !== null) push(this.#byUser, entry.userId, entry);
    else push(this.#byRoom, entry.roomId!, entry);
    return entry;
  }

  /** Removes a rule; false when there is none of that id (or it is another owner's, when `owner` is given). */
  remove(id: number, owner?: string): boolean {
    const entry = this.#byId.get(id);
    if (!entry || (owner !== undefined && entry.owner !== owner)) return false;
    this.#byId.delete(id);
    if (entry.userId !== null) pull(this.#byUser, entry.userId, entry);
    else pull(this.#byRoom, entry.roomId!, entry);
    return true;
  }

  /** Removes every rule of `owner` (its plugin stopped); returns how many. */
  removeOwner(owner: string): number {
    const ids = [...this.#byId.values()].filter((r) => r.owner === owner).map((r) => r.id);
    for (const id of ids) this.remove(id);
    return ids.length;
  }

  /** Rules in force (of `owner` when given). */
  list(now: number, owner?: string): VetoRule[] {
    this.#expire(now);
    return [...this.#byId.values()].filter((r) => owner === undefined || r.owner === owner);
  }

  /** The veto hook: the reason of the first rule refusing `command`, else null. */
  check(command: CommandView, now: number): string | null {
    if (this.#byId.size === 0) return null;
    const matches = (r: VetoRule) =>
      (r.until === null || r.until > now) &&
      (r.commands.length === 0 || r.commands.includes(command.type)) &&
      (r.roomId === null || r.roomId === command.roomId);
    if (command.userId !== null) {
      const hit = this.#byUser.get(command.userId)?.find(matches);
      if (hit) return hit.reason;
    }
    if (command.roomId !== null) {
      const hit = this.#byRoom.get(command.roomId)?.find(matches);
      if (hit) return hit.reason;
    }
    return null;
  }

  #expire(now: number): void {
    for (const r of [...this.#byId.values()]) if (r.until !== null && r.until <= now) this.remove(r.id);
  }
}

function push<K>(map: Map<K, VetoRule[]>, key: K, rule: VetoRule): void {
  const list = map.get(key);
  if (list) list.push(rule);
  else map.set(key, [rule]);
}

function pull<K>(map: Map<K, VetoRule[]>, key: K, rule: VetoRule): void {
  const list = map.get(key)?.filter((r) => r !== rule) ?? [];
  if (list.length) map.set(key, list);
  else map.delete(key);
}
