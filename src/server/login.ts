/**
 * Login (spec 3 §3.2, §5): token → authentication cache or upstream `/me`
 * within the authentication budget → `Authenticate(Ok((UserInfo,
 * Option<ClientRoomState>)))`, or `Authenticate(Err)` then close.
 *
 * A reconnecting user keeps their room; the new connection becomes current
 * in the same step that queues its `Authenticate(Ok)`, so every later
 * broadcast follows the reply in its FIFO queue. Once that reply is flushed
 * the old connection is closed; if the new connection dies first, the old
 * one (when still open) is bound again.
 *
 * @module
 */

import type { ClientCommandOf } from "../protocol/mod.ts";
import { clientRoomState } from "../room/mod.ts";
import type { SessionCategory } from "../session/session.ts";
import { resolveLocale, translate } from "../l10n/mod.ts";
import { banNotice } from "./admin.ts";
import { tokenHash } from "./auth_cache.ts";
import { reportVisit } from "./room_monitor.ts";
import { renderWelcome } from "./welcome.ts";
import type { CommandContext } from "./command_context.ts";
import type { UpstreamIdentity } from "./context.ts";
import { type ServerCore, SYSTEM_USER, type User } from "./core.ts";

/** Suffix of game-monitor names (protocol.md §3.5). */
export const MONITOR_NAME_SUFFIX = " (monitor)";

type TokenCommand = "Authenticate" | "ConsoleAuthenticate" | "GameMonitorAuthenticate";

/** Resolves a token through the cache or the upstream. Never logs the token. */
async function resolveIdentity(core: ServerCore, token: string): Promise<UpstreamIdentity> {
  const hash = await tokenHash(token);
  const cached = core.authCache.get(hash);
  if (cached) {
    core.counters.inc("auth_cache_hits");
    return { id: cached.user_id, name: cached.name, language: cached.language };
  }
  core.counters.inc("auth_cache_misses");
  const identity = await core.ctx.upstream.me(token, { budgetMs: core.ctx.config.auth_budget_ms });
  core.authCache.set(hash, {
    user_id: identity.id,
    name: identity.name,
    language: identity.language,
    cached_at: core.ctx.clock.now(),
  });
  return identity;
}

/** Handles the three token-based authenticate commands. */
export async function login<T extends TokenCommand>(core: ServerCore, cc: CommandContext<T>): Promise<void> {
  const { session } = cc;
  const { log, config } = core.ctx;
  if (session.state !== "connected") return cc.fail("repeated-authenticate");
  if (core.shuttingDown) {
    cc.fail("server-shutting-down");
    session.state = "failed";
    return void session.closeAfterFlush(cc.replySeq, "rejected");
  }
  if (session.overCapacity) {
    core.counters.inc("sessions_rejected_full");
    cc.fail("server-full");
    session.state = "failed";
    return void session.closeAfterFlush(cc.replySeq, "rejected");
  }
  if (core.pendingAuth >= config.max_pending_auth) {
    core.counters.inc("auth_rejected_busy");
    cc.fail("server-busy");
    session.state = "failed";
    return void session.closeAfterFlush(cc.replySeq, "rejected");
  }
  const cmd = cc.cmd as ClientCommandOf<TokenCommand>;
  const category: SessionCategory = cmd.type === "ConsoleAuthenticate"
    ? "console"
    : cmd.type === "GameMonitorAuthenticate"
    ? "game-monitor"
    : "normal";
  session.state = "authenticating";
  core.pendingAuth++;
  let identity: UpstreamIdentity;
  try {
    identity = await resolveIdentity(core, cmd.token);
  } catch (error) {
    core.counters.inc("auth_failures");
    log.info("authentication failed", {
      session: session.id,
      reason: error instanceof Error ? error.message : String(error),
    });
    if (!session.open) return;
    session.state = "failed";
    cc.fail("auth-failed");
    return void session.closeAfterFlush(cc.replySeq, "auth-failed");
  } finally {
    core.pendingAuth--;
  }
  if (!session.open) return;
  if (core.shuttingDown) {
    session.state = "failed";
    cc.fail("server-shutting-down");
    return void session.closeAfterFlush(cc.replySeq, "rejected");
  }
  // spec 3 §4.1 rule 4: banned ids and addresses get Authenticate(Err(reason)).
  const ban = core.bans.userBan(identity.id);
  const ipBan = core.bans.ipBan(session.ip);
  if (ban || ipBan) {
    log.info("banned login refused", { user: identity.id, session: session.id, by: ban ? "user" : "ip" });
    session.state = "failed";
    const notice = banNotice((ban ?? ipBan)!.reason);
    cc.failText(translate(resolveLocale(identity.language), notice.key, notice.args));
    return void session.closeAfterFlush(cc.replySeq, "rejected");
  }
  // Game monitors act under the negated id with a marked name (protocol.md §3.5).
  const id = category === "game-monitor" ? -Math.abs(identity.id) : identity.id;
  const name = category === "game-monitor" ? identity.name + MONITOR_NAME_SUFFIX : identity.name;
  const journal = core.ctx.loginJournal;
  if (journal) {
    // spec 3 §3.2: the login is journaled before Authenticate(Ok) is sent.
    try {
      await journal.recordLogin({
        user_id: id,
        name,
        language: identity.language,
        ip: session.ip,
        session_id: session.id,
        category,
        at: core.ctx.clock.now(),
      });
    } catch (error) {
      log.error("login could not be made durable; refusing it", {
        user: id,
        session: session.id,
        error: String(error),
      });
      if (!session.open) return;
      session.state = "failed";
      cc.fail("server-busy");
      return void session.closeAfterFlush(cc.replySeq, "rejected");
    }
    if (!session.open) return;
  }
  bind(core, cc, core.upsertUser(id, name, identity.language, category), category);
}

/** Makes `cc.session` the user's current connection and answers the login. */
function bind<T extends TokenCommand>(
  core: ServerCore,
  cc: CommandContext<T>,
  user: User,
  category: SessionCategory,
): void {
  const { session } = cc;
  const { clock, log, bus } = core.ctx;
  clock.clearTimeout(user.dangle);
  user.dangle = undefined;
  const previous = user.session && user.session !== session ? user.session : null;
  const room = core.roomOf(user);
  const seq = cc.replyCommand({
    type: "Authenticate",
    result: { ok: true, value: [core.userInfo(user), room ? clientRoomState(room, user.id) : null] },
  });
  session.activate(category, user.id);
  user.session = session;
  if (room && room.chart && room.phase.kind !== "select") {
    // A client reconnecting into a waiting or running round learns the chart
    // only from SelectChart; without it the official client panics when the
    // round starts (TeamFlos/phira-mp#33). Repeat it, then the state.
    core.sendTo([user.id], {
      type: "Message",
      message: { type: "SelectChart", user: room.hostId ?? 0, name: room.chart.name, id: room.chart.id },
    });
  }
  // spec 3 §4.2 benchmark: virtual players (negative ids; game monitors are negative too but not "normal") log at
  // debug, or a run floods the log with logins.
  log[user.id < 0 && category === "normal" ? "debug" : "info"]("user authenticated", {
    user: user.id,
    session: session.id,
    room: room?.id,
    reconnect: previous !== null || room !== undefined,
  });
  if (category === "normal") {
    core.seenPlayers.add(user.id);
    sendWelcome(core, user);
  }
  // Every player login is reported to the room monitor (protocol.md §3.5 `UserVisit`).
  if (category === "normal" || category === "game-monitor") reportVisit(core, user.id);
  bus.publish({ kind: "user.online", user: user.id, name: user.name, language: user.language, ip: session.ip });
  const started = cc.inbound.receivedAt;
  void session.outbound.flushed(seq).then((flushed) => {
    if (flushed) {
      core.counters.inc("response_flushed");
      core.counters.handshake.record(clock.monotonic() - started);
      if (previous?.open) {
        previous.userId = null;
        previous.close("replaced");
      }
    } else if (previous?.open && user.session === null && core.users.get(user.id) === user) {
      // The new connection died before its reply got out: keep the old one.
      clock.clearTimeout(user.dangle);
      user.dangle = undefined;
      user.session = previous;
    }
  });
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
