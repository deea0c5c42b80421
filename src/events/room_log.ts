/**
 * Room lifecycle as log lines: one line per room created, joined, left,
 * updated (host, state, chart, cycle, lock) and deleted, with the `room`,
 * `user` and `name` fields. The companion room service follows the server's
 * log file (spec 2 §4.4 behaviour 2) and reads these lines, as the original
 * read the official server's (their texts: `docs/companions.md`). Attached
 * to the event bus from outside the server core; hidden rooms and game
 * monitors are left out, and the benchmark's virtual players and `bench-`
 * rooms log at debug so a run does not flood the log.
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import type { EventBus } from "./bus.ts";
import type { DomainEvent } from "./types.ts";

/** The messages of the lines (the vocabulary the companion follower parses). */
export const ROOM_LOG_MESSAGES = {
  created: "room created",
  joined: "user joined room",
  left: "user left room",
  updated: "room updated",
  deleted: "room deleted",
} as const;

/** Names remembered for `room created` lines (the creator's name is not in the event). */
const MAX_NAMES = 65536;

function quiet(room: string, user?: number | null): boolean {
  return room.startsWith("bench-") || (user !== undefined && user !== null && user < 0);
}

/**
 * Logs room events from `bus` until the returned function is called. The
 * subscription is bounded like every bus subscriber: a burst beyond its
 * buffer loses the oldest lines and logs how many.
 */
export function logRoomEvents(bus: EventBus, log: Logger): () => void {
  const sub = bus.subscribe({
    kinds: ["room.created", "room.joined", "room.left", "room.updated", "room.deleted", "user.online"],
    capacity: 4096,
  });
  const names = new Map<number, string>();
  const line = (e: DomainEvent): void => {
    switch (e.kind) {
      case "user.online":
        names.delete(e.user);
        names.set(e.user, e.name);
        if (names.size > MAX_NAMES) names.delete(names.keys().next().value!);
        return;
      case "room.created": {
        if (e.hidden) return;
        const level = quiet(e.room, e.by) ? "debug" : "info";
        const by = e.by === null ? {} : { user: e.by, name: names.get(e.by) };
        log[level](ROOM_LOG_MESSAGES.created, {
          room: e.room,
          ...by,
          host: e.data.host,
          state: e.data.state,
          cycle: e.data.cycle,
          lock: e.data.lock,
          chart: e.data.chart ?? undefined,
        });
        return;
      }
      case "room.joined":
      case "room.left": {
        if (e.hidden || e.monitor) return;
        const level = quiet(e.room, e.user) ? "debug" : "info";
        const extra = e.kind === "room.left" ? { reason: e.reason } : {};
        log[level](ROOM_LOG_MESSAGES[e.kind === "room.joined" ? "joined" : "left"], {
          room: e.room,
          user: e.user,
          name: e.name,
          ...extra,
        });
        return;
      }
      case "room.updated": {
        if (e.hidden) return;
        const c = e.changes;
        log[quiet(e.room) ? "debug" : "info"](ROOM_LOG_MESSAGES.updated, {
          room: e.room,
          host: c.host ?? undefined,
          state: c.state ?? undefined,
          chart: c.chart ?? undefined,
          cycle: c.cycle ?? undefined,
          lock: c.lock ?? undefined,
        });
        return;
      }
      case "room.deleted":
        log[quiet(e.room) ? "debug" : "info"](ROOM_LOG_MESSAGES.deleted, { room: e.room });
        return;
    }
  };
  (async () => {
    for await (const item of sub) {
      if (item.type === "lagged") log.warn("room log lines lost: the log fell behind", { skipped: item.skipped });
      else line(item.event);
    }
  })();
  return () => sub.close();
}
