/**
 * Telemetry budget per player (issue 14): `Touches` and `Judges` are held to
 * what the official client sends, with headroom; the excess is dropped (they
 * have no reply, protocol.md §3.2) and counted (`telemetry_dropped`,
 * `telemetry_items_dropped` in the runtime report). Without it one player in
 * a watched room could make the server relay, publish and store as much as it
 * could write (28 MB in 10 s).
 *
 * What the official client sends (protocol.md §3.1): touch moves at most
 * 20 Hz per finger, frames batched and sent when more than 20 are queued or
 * 1 s passed (so at most ~10 messages/s even with ten fingers moving out of
 * step: 200 points and 200 frames a second); judge events batched by more
 * than 10 or 0.6 s, so as many per second as the chart has notes (the
 * densest charts peak around 100 notes/s). The budget gives every rate at
 * least twice that, and a burst of five seconds of it so a connection that
 * stalled and delivers its backlog at once loses nothing.
 *
 * It is a link of the command pipeline (a guard, before the veto hooks, so
 * extensions never pay for dropped telemetry), and the budgets are its own
 * state, kept per `User` record in a `WeakMap` (a reconnect does not refill
 * them; they go with the record).
 *
 * @module
 */

import { TokenBucket } from "../net/rate_limit.ts";
import { type ClientCommandOf, telemetryItems } from "../protocol/mod.ts";
import type { CommandLink } from "./pipeline.ts";
import type { User } from "./user.ts";

/** Rates (per second) and burst of a player's telemetry budget. */
export interface TelemetryBudget {
  readonly touches: { readonly messagesPerSec: number; readonly itemsPerSec: number };
  readonly judges: { readonly messagesPerSec: number; readonly itemsPerSec: number };
  readonly burstSecs: number;
}

/** The budget of one player (the server's context may replace it). */
export const TELEMETRY_BUDGET: TelemetryBudget = {
  /** Items = frames + touch points (each is stored). Official peak ~400/s. */
  touches: { messagesPerSec: 20, itemsPerSec: 1000 },
  /** Items = judge events. Official peak = the chart's note density, ~100/s. */
  judges: { messagesPerSec: 20, itemsPerSec: 250 },
  /** A budget holds this many seconds of its rate (what may arrive at once after a stall). */
  burstSecs: 5,
};

type Kind = "touches" | "judges";

interface Budget {
  readonly messages: TokenBucket;
  readonly items: TokenBucket;
}

/** The telemetry guard of one server's pipeline (its budgets are its own). */
export function telemetryLimit(): CommandLink {
  const budgets = new WeakMap<User, Record<Kind, Budget>>();
  /** Users already reported in the log: one line per player, however long the flood. */
  const reported = new WeakSet<User>();
  const make = (budget: TelemetryBudget, kind: Kind, now: number): Budget => {
    const periodMs = budget.burstSecs * 1000;
    return {
      messages: new TokenBucket(budget[kind].messagesPerSec * budget.burstSecs, periodMs, now),
      items: new TokenBucket(budget[kind].itemsPerSec * budget.burstSecs, periodMs, now),
    };
  };
  return (cc, next) => {
    const type = cc.cmd.type;
    if (type !== "Touches" && type !== "Judges") return next();
    const user = cc.user;
    // Sessions without a user (not logged in, consoles, the room monitor) are refused by the guards before this one.
    if (!user || cc.session.state !== "active") return next();
    const now = cc.core.ctx.clock.monotonic();
    let own = budgets.get(user);
    if (!own) {
      const budget = cc.core.ctx.telemetryBudget ?? TELEMETRY_BUDGET;
      own = { touches: make(budget, "touches", now), judges: make(budget, "judges", now) };
      budgets.set(user, own);
    }
    const b = type === "Touches" ? own.touches : own.judges;
    const items = telemetryItems(cc.cmd as ClientCommandOf<"Touches" | "Judges">);
    // Items first: a refused message then costs no message token either (and vice versa below).
    if (b.items.take(now, items)) {
      if (b.messages.take(now)) return next();
      b.items.refund(items);
    }
    const counters = cc.core.counters;
    counters.inc("telemetry_dropped");
    counters.inc("telemetry_items_dropped", items);
    if (!reported.has(user)) {
      reported.add(user);
      cc.core.ctx.log.warn("telemetry over the player's budget; the excess is dropped (counted as telemetry_dropped)", {
        user: user.id,
        session: cc.session.id,
        room: user.roomId ?? undefined,
        command: type,
      });
    }
  };
}
