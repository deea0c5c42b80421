/**
 * A transition under construction: the evolving room plus the ordered
 * effects. Recipient lists are captured when an effect is emitted, so a
 * broadcast made before someone leaves still reaches them (protocol.md §5.5).
 *
 * @module
 */

import type { DomainEventInput } from "../events/mod.ts";
import type { LocalText, MessageArgs, MessageKey } from "../l10n/mod.ts";
import type { Message, PartialRoomData, ServerCommand } from "../protocol/mod.ts";
import type { ReplyValue, Room, RoomCtx, RoomEffect, Transition } from "./types.ts";
import { memberIds } from "./views.ts";

/** Builder for one transition. Local to a single call; never shared. */
export class Tx {
  room: Room | null;
  readonly ctx: RoomCtx;
  readonly effects: RoomEffect[] = [];

  constructor(room: Room | null, ctx: RoomCtx) {
    this.room = room;
    this.ctx = ctx;
  }

  /** The live room; throws if it was deleted earlier in this transition. */
  get r(): Room {
    if (!this.room) throw new Error("Cannot use room: it was deleted in this transition");
    return this.room;
  }

  /** Replaces fields of the room. */
  set(patch: Partial<Room>): Room {
    return (this.room = { ...this.r, ...patch });
  }

  /** Sends `cmd` to everyone in the room now. */
  toRoom(cmd: ServerCommand): void {
    this.effects.push({ t: "send", to: memberIds(this.r), cmd });
  }

  /** Broadcasts a room `Message`. */
  message(message: Message): void {
    this.toRoom({ type: "Message", message });
  }

  /** Sends `cmd` to some users. */
  to(ids: readonly number[], cmd: ServerCommand): void {
    if (ids.length) this.effects.push({ t: "send", to: ids, cmd });
  }

  /** A localized system chat line to some users. */
  text(ids: readonly number[], key: MessageKey, args?: MessageArgs): void {
    if (ids.length) this.effects.push({ t: "text", to: ids, text: args ? { key, args } : { key } });
  }

  /** Records a membership change of a user. */
  membership(user: number, room: string | null, monitor: boolean): void {
    this.effects.push({ t: "membership", user, room, monitor });
  }

  /** Publishes a domain event scoped to this room. */
  event(event: DistributiveOmit<DomainEventInput, "room" | "uuid" | "hidden">): void {
    const r = this.room;
    if (!r) return;
    this.effects.push({
      t: "event",
      event: { ...event, room: r.id, uuid: r.uuid, hidden: r.hidden } as DomainEventInput,
    });
  }

  /** Publishes `room.updated` with the changed fields. */
  updated(changes: Partial<PartialRoomData>): void {
    this.event({
      kind: "room.updated",
      changes: { host: null, lock: null, cycle: null, chart: null, state: null, ...changes },
    });
  }

  /** Replies Ok. */
  ok(value: ReplyValue = null): Transition {
    this.effects.push({ t: "reply", result: { ok: true, value } });
    return this.done();
  }

  /** Replies with a localized error; the room is left as it is now. */
  fail(key: MessageKey, args?: MessageArgs): Transition {
    const error: LocalText = args ? { key, args } : { key };
    this.effects.push({ t: "reply", result: { ok: false, error } });
    return this.done();
  }

  /** The finished transition. */
  done(): Transition {
    return { room: this.room, effects: this.effects };
  }
}

/** `Omit` that distributes over a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
