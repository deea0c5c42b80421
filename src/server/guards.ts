/**
 * The built-in guards of the command pipeline, in order: each refuses a
 * command with the protocol's error reply (spec 3 §4.1 rule 1) or passes it
 * on. `Touches` and `Judges` have no reply; a refused one is dropped.
 *
 * @module
 */

import type { ClientCommandType } from "../protocol/mod.ts";
import { TokenBucket } from "../net/rate_limit.ts";
import type { Session } from "../session/session.ts";
import { COMMAND_DEADLINE_MS } from "./counters.ts";
import type { CommandLink } from "./pipeline.ts";
import { telemetryLimit } from "./telemetry_limit.ts";

/** Commands a session may send before it is authenticated. */
export const PRE_AUTH: ReadonlySet<ClientCommandType> = new Set<ClientCommandType>([
  "Ping",
  "Authenticate",
  "ConsoleAuthenticate",
  "GameMonitorAuthenticate",
  "RoomMonitorAuthenticate",
]);

/** Room operations counted against the room-operation rate limit. */
const ROOM_OPERATIONS = new Set<ClientCommandType>([
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
]);

/** Rate-limited command classes. */
export type CommandClass = "chat" | "room";

/** Past its deadline the client stopped waiting: refuse rather than commit what it never learns (spec 3 §7 rule 4). */
const deadline: CommandLink = (cc, next) => {
  const { core } = cc;
  if (cc.replyType && core.ctx.clock.monotonic() - cc.inbound.receivedAt > COMMAND_DEADLINE_MS) {
    core.counters.inc("late_commit");
    core.ctx.log.warn("command reached its handler after its deadline; refused", {
      command: cc.cmd.type,
      session: cc.session.id,
    });
    return cc.fail("server-busy");
  }
  return next();
};

/**
 * Before login only Ping and the authenticate commands make sense; the rest
 * still get their error reply (spec 3 §4.1 rule 1). A failed login's session
 * is closing: what it still sends is not answered.
 */
const authenticated: CommandLink = (cc, next) => {
  const state = cc.session.state;
  if (state === "active" || PRE_AUTH.has(cc.cmd.type)) return next();
  if (state !== "failed") cc.fail("not-authenticated");
};

/** The room monitor and consoles have no user record (a console is never the player): they may only query. */
const sessionKind: CommandLink = (cc, next) => {
  const { session } = cc;
  const type = cc.cmd.type;
  if (session.state !== "active" || PRE_AUTH.has(type)) return next();
  if (session.category === "room-monitor" || session.category === "console") {
    if (type !== "QueryRoomInfo") return cc.fail("invalid-session-command");
  }
  return next();
};

/** A replaced connection must not act for the user any more. */
const binding: CommandLink = (cc, next) => {
  const { session } = cc;
  if (session.state !== "active" || PRE_AUTH.has(cc.cmd.type) || !isUserSession(session)) return next();
  const user = cc.user;
  if (!user || user.session !== session) return cc.fail("connection-replaced");
  return next();
};

function isUserSession(session: Session): boolean {
  return session.category !== "room-monitor" && session.category !== "console";
}

/** Chat 10 per 3 s, room operations 20 per 6 s, per session (spec 3 §5 rule 6). */
function rateLimit(): CommandLink {
  // Per-session budgets, owned by this server's chain; a closed session's budgets go with it.
  const buckets = new WeakMap<Session, Record<CommandClass, TokenBucket>>();
  return (cc, next) => {
    const type = cc.cmd.type;
    const cls = type === "Chat" ? "chat" : ROOM_OPERATIONS.has(type) ? "room" : null;
    if (cls === null || cc.session.state !== "active" || !isUserSession(cc.session)) return next();
    const now = cc.core.ctx.clock.monotonic();
    let budget = buckets.get(cc.session);
    if (!budget) {
      budget = { chat: new TokenBucket(10, 3000, now), room: new TokenBucket(20, 6000, now) };
      buckets.set(cc.session, budget);
    }
    if (budget[cls].take(now)) return next();
    cc.core.counters.inc("commands_rate_limited");
    return cc.fail("rate-limited");
  };
}

/**
 * The guards of one server, in order (a new chain has its own rate-limit and
 * telemetry budgets). The telemetry budget (`telemetry_limit.ts`) comes
 * before the veto hooks: extensions never pay for telemetry that is dropped.
 */
export function builtinGuards(): CommandLink[] {
  return [deadline, authenticated, sessionKind, binding, rateLimit(), telemetryLimit()];
}
