/**
 * Login (spec 3 §3.2, §5): token -> authentication cache or upstream `/me`
 * within the authentication budget -> journal record -> `Authenticate(Ok((UserInfo,
 * Option<ClientRoomState>)))`, or `Authenticate(Err)` then close.
 *
 * This module runs the session through Authenticating up to
 * DurableAccepted (the login's journal record is on disk);
 * `login_activation.ts` takes it from there to Active, or rolls it back.
 * A login refused after its record was written gets a compensating record
 * so that it never counts (spec 3 §3.2 "compensation sent").
 *
 * @module
 */

import type { ClientCommandOf } from "../protocol/mod.ts";
import type { SessionCategory } from "../session/session.ts";
import { resolveLocale, translate } from "../l10n/mod.ts";
import { banNotice } from "./admin.ts";
import { tokenHash } from "./auth_cache.ts";
import type { CommandContext } from "./command_context.ts";
import type { LoginRecord, UpstreamIdentity } from "./context.ts";
import type { ServerCore } from "./core.ts";
import { accept, compensate } from "./login_activation.ts";
import { isTokenRejection, type LoginAdmission } from "./login_admission.ts";

/** Suffix of game-monitor names (protocol.md §3.5). */
export const MONITOR_NAME_SUFFIX = " (monitor)";

type TokenCommand = "Authenticate" | "ConsoleAuthenticate" | "GameMonitorAuthenticate";

/** Resolves a token through the cache or the upstream. Never logs the token (spec 3 §2.2). */
async function resolveIdentity(core: ServerCore, token: string, hash: string): Promise<UpstreamIdentity> {
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

/** True when the journal says the record was written although the login failed (it will reach the store). */
function committed(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { committed?: unknown }).committed === true;
}

/**
 * Handles the three token-based authenticate commands. `admission` (one per
 * server) bounds logins in flight per client address and remembers tokens
 * the upstream rejected (`login_admission.ts`).
 */
export async function login<T extends TokenCommand>(
  core: ServerCore,
  cc: CommandContext<T>,
  admission: LoginAdmission,
): Promise<void> {
  const { session } = cc;
  const { config, clock } = core.ctx;
  // spec 3 §3.2 Connected -> Authenticating (a second authenticate command is refused).
  if (!session.login.begin()) return cc.fail("repeated-authenticate");
  if (core.shuttingDown) return refuse(cc, "server-shutting-down");
  if (session.overCapacity) {
    core.counters.inc("sessions_rejected_full");
    return refuse(cc, "server-full");
  }
  const cmd = cc.cmd as ClientCommandOf<TokenCommand>;
  const hash = await tokenHash(cmd.token);
  if (!session.open) return;
  // A token the upstream just rejected is refused at once: junk repeated takes no slot and no upstream call.
  if (admission.isRejected(hash, clock.monotonic())) {
    core.counters.inc("auth_rejected_remembered");
    return refuse(cc, "auth-failed");
  }
  if (core.pendingAuth >= config.max_pending_auth) {
    core.counters.inc("auth_rejected_busy");
    return refuse(cc, "server-busy");
  }
  // Each client address (IPv6: its /64) gets its share of the slots, so one client cannot refuse everyone else.
  const address = admission.enter(session.ip, config.max_pending_auth_per_ip);
  if (address === null) {
    core.counters.inc("auth_rejected_address_busy");
    return refuse(cc, "server-busy");
  }
  const category: SessionCategory = cmd.type === "ConsoleAuthenticate"
    ? "console"
    : cmd.type === "GameMonitorAuthenticate"
    ? "game-monitor"
    : "normal";
  // `max_pending_auth` bounds every login until it is Active or failed, not just its upstream lookup: logins
  // waiting on the journal's fsync or on their reply's flush hold memory too (spec 3 §3.2, §8).
  core.pendingAuth++;
  try {
    await authenticate(core, cc, { token: cmd.token, hash }, category, admission);
  } finally {
    core.pendingAuth--;
    admission.leave(address);
  }
}

/** Answers a login with an error and closes once that is flushed (Authenticating -> Failed). */
function refuse<T extends TokenCommand>(
  cc: CommandContext<T>,
  key:
    | "server-shutting-down"
    | "server-full"
    | "server-busy"
    | "auth-failed"
    | "login-storage-full"
    | "login-storage-failed",
): void {
  cc.fail(key);
  cc.session.login.refuse(cc.replySeq, key === "auth-failed" ? "auth-failed" : "rejected");
}

/** Authenticating -> DurableAccepted, then hands over to `accept` (Active or rollback). */
async function authenticate<T extends TokenCommand>(
  core: ServerCore,
  cc: CommandContext<T>,
  credential: { readonly token: string; readonly hash: string },
  category: SessionCategory,
  admission: LoginAdmission,
): Promise<void> {
  const { session } = cc;
  const { log } = core.ctx;
  let identity: UpstreamIdentity;
  try {
    identity = await resolveIdentity(core, credential.token, credential.hash);
  } catch (error) {
    core.counters.inc("auth_failures");
    if (isTokenRejection(error)) admission.rememberRejected(credential.hash, core.ctx.clock.monotonic());
    log.info("authentication failed", {
      session: session.id,
      reason: error instanceof Error ? error.message : String(error),
    });
    if (!session.open) return;
    return refuse(cc, "auth-failed");
  }
  if (!session.open) return;
  if (core.shuttingDown) return refuse(cc, "server-shutting-down");
  // spec 3 §4.1 rule 4: banned ids and addresses get Authenticate(Err(reason)).
  const ban = core.bans.userBan(identity.id);
  const ipBan = core.bans.ipBan(session.ip);
  if (ban || ipBan) {
    log.info("banned login refused", { user: identity.id, session: session.id, by: ban ? "user" : "ip" });
    const notice = banNotice((ban ?? ipBan)!.reason);
    cc.failText(translate(resolveLocale(identity.language), notice.key, notice.args));
    return session.login.refuse(cc.replySeq, "rejected");
  }
  // Game monitors act under the negated id with a marked name (protocol.md §3.5).
  const id = category === "game-monitor" ? -Math.abs(identity.id) : identity.id;
  const name = category === "game-monitor" ? identity.name + MONITOR_NAME_SUFFIX : identity.name;
  const record: LoginRecord = {
    user_id: id,
    name,
    language: identity.language,
    ip: session.ip,
    session_id: session.id,
    category,
    at: core.ctx.clock.now(),
  };
  const journal = core.ctx.loginJournal;
  if (journal) {
    // spec 3 §3.2: the login is journaled before Authenticate(Ok) is sent.
    try {
      await journal.recordLogin(record);
    } catch (error) {
      log.error("login could not be made durable; refusing it", {
        user: id,
        session: session.id,
        error: String(error),
      });
      // Written but not flushed: it would reach the store as a login nobody was told about.
      if (committed(error)) compensate(core, record, "journal flush failed");
      if (!session.open) return;
      // A storage failure, not a busy server: the player can tell the operator what is wrong (issue 14).
      return refuse(
        cc,
        (error as { diskFull?: unknown }).diskFull === true ? "login-storage-full" : "login-storage-failed",
      );
    }
  }
  await accept(core, cc, { id, name, language: identity.language, category, accountId: identity.id }, {
    record: journal ? record : null,
  });
}
