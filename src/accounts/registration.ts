/**
 * `POST /api/auth/users`: registration with the room-name proof (spec 2 §3,
 * §4.1, §6). Everything that can be checked at once is answered as a JSON
 * error before the stream starts (400/401/403/409/422/429/502/503). Then
 * the answer is an SSE stream: `validating` with the token once; then
 * `success` with the new user, `timeout` (after 5 minutes), or `error` with
 * a sentence, after which the stream ends; `: heartbeat` comments meanwhile.
 *
 * The password is hashed before the stream starts, so it is not kept in
 * memory while the proof waits. The game account must be the one named:
 * a room with the token created by another account ends the proof with an
 * error (the token is spent). Clients must read the POST response as a
 * stream (`fetch` and a reader); an `EventSource` cannot POST.
 *
 * @module
 */

import type { Hono } from "hono";
import { type AccountsContext, type AccountsEnv, actorOf, enforce, userJson } from "./context.ts";
import { ApiError } from "./errors.ts";
import { resolveGameAccount } from "./game_accounts.ts";
import { passwordProblem } from "./passwords.ts";
import { canCreateUserInGroup, DEFAULT_GROUP_ID } from "./permissions.ts";
import { SSE_HEADERS, SseChannel, sseComment, sseJson, sseText } from "./sse.ts";
import type { GameProfile } from "./store.ts";
import type { ProofOutcome, StartedProof } from "./verification.ts";
import { intField, onlyFields, readJson, stringField, usernameProblem } from "./validate.ts";

/** What the stream says for an outcome other than success. */
function failureText(o: ProofOutcome, token: string, gameId: number): string {
  switch (o.type) {
    case "wrong_account":
      return `room ${token} was created by game account ${o.creator}, not by game account ${gameId} named in the ` +
        "request; start the registration again and create the room with that account";
    case "superseded":
      return `game account ${gameId} was linked by another registration`;
    case "cancelled":
      return "the server is shutting down; try again later";
    default:
      return "the registration ended";
  }
}

/** Registers `POST /api/auth/users`. */
export function registrationRoute(app: Hono<AccountsEnv>, ctx: AccountsContext): void {
  app.post("/api/auth/users", async (c) => {
    const body = await readJson(c.req.raw);
    onlyFields(body, ["username", "password", "game_id_or_username", "group_id"]);
    const username = stringField(body, "username", true);
    const password = stringField(body, "password", true);
    const gameText = stringField(body, "game_id_or_username", true);
    const groupId = intField(body, "group_id") ?? DEFAULT_GROUP_ID;
    const nameProblem = usernameProblem(username);
    if (nameProblem) throw new ApiError("invalid_username", nameProblem);
    const pwProblem = passwordProblem(password);
    if (pwProblem) throw new ApiError("invalid_password", pwProblem);
    if (groupId !== DEFAULT_GROUP_ID) {
      // Spec 2 §5 item 1: choosing the group takes GROUP_MANAGEMENT (and only groups within your own bits).
      const auth = c.get("auth");
      if (!auth) throw new ApiError("unauthenticated", "choosing group_id needs a login with GROUP_MANAGEMENT");
      const group = await ctx.store.group(groupId);
      if (!group) throw new ApiError("unknown_group", `group ${groupId} does not exist`);
      enforce(canCreateUserInGroup(actorOf(auth.user), group.permissions));
    }
    if (await ctx.store.userByName(username)) throw new ApiError("username_taken", `username "${username}" is taken`);
    if (!ctx.source.connected) {
      throw new ApiError("game_server_unavailable", "the game server cannot be reached now; try again later");
    }
    // Before the costly part (a game API lookup, a password hash): the waiting limit and the attempt limit.
    const ip = c.env.ip;
    ctx.verifications.checkRoom(ip);
    const now = ctx.clock.now();
    const wait = ctx.registrationsByIp.retryAfter(ip, now);
    if (wait > 0) {
      const secs = Math.ceil(wait / 1000);
      throw new ApiError("rate_limited", `too many registrations from this address; try again in ${secs} s`, {
        "Retry-After": String(secs),
      });
    }
    ctx.registrationsByIp.fail(ip, now);
    const game = await resolveGameAccount(ctx.games, gameText);
    if (await ctx.store.userByGameId(game.gameId)) {
      throw new ApiError("game_account_bound", `game account ${game.gameId} is already linked to another user`);
    }
    const passwordHash = await ctx.hasher.hash(password);
    return openProof(ctx, ip, { username, passwordHash, groupId, game });
  });
}

interface Applicant {
  readonly username: string;
  readonly passwordHash: string;
  readonly groupId: number;
  readonly game: GameProfile;
}

function openProof(ctx: AccountsContext, ip: string, a: Applicant): Response {
  let proof: StartedProof | null = null;
  const channel: SseChannel = new SseChannel({
    clock: ctx.clock,
    capacity: 16,
    keepAlive: sseComment("heartbeat"),
    keepAliveMs: ctx.keepAliveMs,
    onClose: () => {
      proof?.cancel();
      ctx.registrations.delete(channel);
    },
  });
  if (!ctx.registrations.tryAdd(channel, ip)) {
    channel.close();
    if (ctx.registrations.refusal(ip) === "client-full") {
      throw new ApiError("rate_limited", "too many registrations are open from this address; try again later");
    }
    throw new ApiError("busy", "too many registrations are open; try again later");
  }
  const gameId = a.game.gameId;
  try {
    proof = ctx.verifications.start(gameId, ip, (t) => ctx.rooms.has(t), (outcome) => {
      if (outcome.type === "matched") return void finish(ctx, channel, a);
      if (outcome.type === "timeout") channel.push(sseText("timeout", ""));
      else channel.push(sseText("error", failureText(outcome, token, gameId)));
      ctx.log.info("registration ended", { game_user: gameId, outcome: outcome.type });
      channel.end();
    });
  } catch (error) {
    ctx.registrations.delete(channel);
    channel.close();
    throw error;
  }
  const token = proof.token;
  channel.push(sseText("validating", token));
  ctx.log.info("registration waiting for the room proof", { game_user: gameId });
  return new Response(channel.body, { headers: SSE_HEADERS });
}

async function finish(ctx: AccountsContext, channel: SseChannel, a: Applicant): Promise<void> {
  const now = ctx.clock.now();
  try {
    const user = await ctx.store.createUser({
      username: a.username,
      passwordHash: a.passwordHash,
      groupId: a.groupId,
      game: a.game,
      now,
      nextSyncAt: now + ctx.syncIntervalMs,
    });
    ctx.verifications.supersede(a.game.gameId);
    channel.push(sseJson("success", userJson(user)));
    ctx.log.info("user registered", { user: user.id, game_user: a.game.gameId });
  } catch (error) {
    if (error instanceof ApiError) channel.push(sseText("error", error.message));
    else {
      ctx.log.error("registration failed", { game_user: a.game.gameId, error: String(error) });
      channel.push(sseText("error", "the account could not be created; try again later"));
    }
  }
  channel.end();
}
