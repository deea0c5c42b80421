/**
 * The second half of a login (spec 3 §3.2): DurableAccepted ->
 * ResponseFlushed -> Active, or rollback.
 *
 * Once the login is journaled, `Authenticate(Ok)` is queued and the session
 * opens its pre-activation gate: from then on the user's frames are held for
 * it behind the reply (spec 3 §8: 256 events, 1 MiB, 8 s), while the user's
 * current binding -- an old connection of a reconnecting user -- keeps working
 * untouched. When the reply is flushed the new session takes over (Active),
 * the gate is released, and only then the old connection closes. Any
 * failure before that (the connection dies, the gate overflows or expires,
 * shutdown, a ban) rolls back: the pending binding is cleared, a user
 * created for this login is removed (a dangling one dangles again), a
 * journaled login gets its compensating record, and the transport closes.
 *
 * Console sessions never touch the user registry: they are answered with
 * their own identity and no room, and never replace a game connection.
 *
 * The transitions are the session's login machine (`session/login_machine.ts`);
 * this module asks for them and performs what they mean for the registry
 * ({@link LoginOwner}: unbind, compensate, take over).
 *
 * @module
 */

import { encodeServerCommand, type UserInfo } from "../protocol/mod.ts";
import { clientRoomState } from "../room/mod.ts";
import type { LoginFailure } from "../session/login_machine.ts";
import type { LoginOwner, Session, SessionCategory } from "../session/session.ts";
import type { CommandContext } from "./command_context.ts";
import type { LoginRecord } from "./context.ts";
import { type ServerCore, SYSTEM_USER, type User } from "./core.ts";
import { dangle, upsertUser, userInfo } from "./presence.ts";
import { renderWelcome } from "./welcome.ts";

/** Who is logging in, as resolved by `login.ts`. */
export interface Identity {
  /** Id the session acts under (negated for game monitors). */
  readonly id: number;
  readonly name: string;
  readonly language: string;
  readonly category: SessionCategory;
  /** The upstream account id (what bans apply to). */
  readonly accountId: number;
}

/** How the login was made durable. */
export interface Durability {
  /** The journaled record, to compensate on rollback; null without a journal. */
  readonly record: LoginRecord | null;
}

/** Why a rollback compensated, as the journal records it. */
const WHY: Record<LoginFailure, string> = {
  "closed": "login reply not flushed (closed)",
  "overflow": "login reply not flushed (overflow)",
  "control-overflow": "login reply not flushed (control-overflow)",
  "expired": "login reply not flushed (expired)",
  "auth-timeout": "authentication timed out",
  "shutdown": "shutting down",
  "banned": "banned while logging in",
  "superseded": "superseded while logging in",
};

/**
 * A login journaled but never answered would count as a login (users row,
 * total players): write its compensating record (spec 3 §3.2) and count the
 * commit that got no response (spec 3 §7 rule 4).
 */
export function compensate(core: ServerCore, record: LoginRecord, reason: string): void {
  core.counters.inc("commit_without_response");
  core.ctx.log.warn("journaled login was not answered; compensating", {
    user: record.user_id,
    session: record.session_id,
    reason,
  });
  try {
    core.ctx.loginJournal?.revokeLogin(record, reason);
  } catch (error) {
    core.ctx.log.error("cannot compensate a journaled login", { user: record.user_id, error: String(error) });
  }
}

/** What the server does for one login's effects beyond its connection (see `LoginOwner`). */
class LoginBinding implements LoginOwner {
  /** The user record this login binds; null for consoles, which never touch the registry. */
  user: User | null = null;
  /** The user's connection before this login, closed at takeover. */
  previous: Session | null = null;

  constructor(readonly core: ServerCore, readonly session: Session, readonly durability: Durability) {}

  unbind(): void {
    const user = this.user;
    if (!user || user.pending !== this.session) return;
    user.pending = null;
    // The old binding, if any, was never touched; without one the user is removed or dangles again.
    if (user.session === null && this.core.users.get(user.id) === user) dangle(this.core, user);
  }

  compensate(why: LoginFailure): void {
    if (this.durability.record) compensate(this.core, this.durability.record, WHY[why]);
  }

  takeOver(): void {
    const user = this.user;
    if (!user) return;
    this.previous = user.session !== this.session ? user.session : null;
    user.pending = null;
    this.core.bindSession(user, this.session);
    const previous = this.previous;
    if (previous) {
      // The old binding ends here: one offline for it, one online for the new one.
      previous.userId = null;
      this.core.ctx.bus.publish({ kind: "user.offline", user: user.id, name: user.name });
      previous.close("replaced");
    }
  }
}

/** Runs a journaled login from DurableAccepted to Active, or rolls it back. */
export async function accept<T extends "Authenticate" | "ConsoleAuthenticate" | "GameMonitorAuthenticate">(
  core: ServerCore,
  cc: CommandContext<T>,
  who: Identity,
  durability: Durability,
): Promise<void> {
  const { session } = cc;
  const binding = new LoginBinding(core, session, durability);
  // spec 3 §3.2 Authenticating -> DurableAccepted (a record for a session closed meanwhile is compensated).
  if (!session.login.durable(binding, durability.record !== null, core.ctx.clock.monotonic())) return;
  if (core.shuttingDown) return session.login.fail("shutdown");
  let reply: [UserInfo, ReturnType<typeof clientRoomState> | null];
  let chartRepeat: Uint8Array | null = null;
  if (who.category === "console") {
    // A console is its own identity: never the player's record, never their room (defect: it used to replace them).
    reply = [{ id: who.id, name: who.name, monitor: false }, null];
  } else {
    const user = upsertUser(core, who.id, who.name, who.language, who.category);
    binding.user = user;
    // The login in flight owns the user now; a rollback re-arms the grace.
    core.ctx.clock.clearTimeout(user.dangle);
    user.dangle = undefined;
    const rival = user.pending;
    user.pending = session;
    session.login.bound();
    // Two new connections at once: the later one wins, the earlier login rolls back.
    if (rival && rival !== session) rival.close("replaced");
    const room = core.roomOf(user);
    reply = [userInfo(user), room ? clientRoomState(room, user.id) : null];
    if (room && room.chart && room.phase.kind !== "select") {
      // A client reconnecting into a waiting or running round learns the chart
      // only from SelectChart; without it the official client panics when the
      // round starts (TeamFlos/phira-mp#33). It follows the reply.
      chartRepeat = encodeServerCommand({
        type: "Message",
        message: { type: "SelectChart", user: room.hostId ?? 0, name: room.chart.name, id: room.chart.id },
      });
    }
  }
  const seq = cc.replyCommand({ type: "Authenticate", result: { ok: true, value: reply } });
  if (chartRepeat) session.push(chartRepeat, false);
  // spec 3 §3.2 DurableAccepted -> ResponseFlushed; a failure on the way has rolled the login back already.
  if (!(await session.login.replyFlushed(seq))) return;
  core.counters.inc("response_flushed");
  core.counters.handshake.record(core.ctx.clock.monotonic() - cc.inbound.receivedAt);
  if (core.shuttingDown) return session.login.fail("shutdown");
  if (core.bans.userBan(who.accountId) || core.bans.ipBan(session.ip)) return session.login.fail("banned");
  const user = binding.user;
  if (user && (user.pending !== session || core.users.get(user.id) !== user)) {
    return session.login.fail("superseded");
  }
  activate(core, session, binding, who);
}

/** ResponseFlushed -> Active: the new session takes over, then the old connection closes (spec 3 §3.2). */
function activate(core: ServerCore, session: Session, binding: LoginBinding, who: Identity): void {
  const { log, bus } = core.ctx;
  const user = binding.user;
  if (!user) {
    session.activate("console", null);
    log.info("console authenticated", { user: who.id, session: session.id });
    return;
  }
  session.activate(who.category, user.id);
  const room = core.roomOf(user);
  // spec 3 §4.2 benchmark: virtual players (negative ids; game monitors are negative too but not "normal") log at
  // debug, or a run floods the log with logins.
  log[user.id < 0 && who.category === "normal" ? "debug" : "info"]("user authenticated", {
    user: user.id,
    session: session.id,
    room: room?.id,
    reconnect: binding.previous !== null || room !== undefined,
  });
  if (who.category === "normal") {
    core.seenPlayers.add(user.id);
    sendWelcome(core, user);
  }
  // Every player login is reported to the room monitor as `UserVisit` (protocol.md §3.5), from this event.
  bus.publish({ kind: "user.online", user: user.id, name: user.name, language: user.language, ip: session.ip });
}

/** Sends the welcome lines as system chat (spec 3 §2.3 `welcome`). */
function sendWelcome(core: ServerCore, user: User): void {
  const { config, clock, log } = core.ctx;
  if (!config.welcome.enabled) return;
  const session = user.session;
  renderWelcome(config.welcome.messages, {
    userId: user.id,
    userName: user.name,
    language: user.language,
    locale: user.locale,
    serverName: config.server_name,
    playersOnline: core.countOnlinePlayers(),
    now: clock.now(),
    showTime: config.welcome.show_time,
    rooms: core.rooms.values(),
    nameOf: (id) => core.users.get(id)?.name,
  }, core.playtime).then((lines) => {
    // Only to the connection that logged in, if it is still the user's.
    if (!session || user.session !== session) return;
    for (const content of lines) {
      core.sendTo([user.id], { type: "Message", message: { type: "Chat", user: SYSTEM_USER, content } });
    }
  }, (error) => log.warn("welcome message failed", { user: user.id, error: String(error) }));
}
