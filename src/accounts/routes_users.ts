/**
 * `GET/PATCH/DELETE /api/auth/users[/<id>]` and the visited game accounts
 * (spec 2 §4.1), under the policy of `permissions.ts`. `POST
 * /api/auth/users` (registration) is `registration.ts`.
 *
 * Fixed from the original (reference: the Flask backend): lists are not
 * public, an unknown id is 404 (not 400), an absent `group_id` leaves the
 * group alone (the original's schema default would reset it to 3), linking
 * a game account checks that it exists, and a password change ends the
 * user's other sessions.
 *
 * @module
 */

import type { Hono } from "hono";
import {
  type AccountsContext,
  type AccountsEnv,
  actorOf,
  type Ctx,
  enforce,
  requireAuth,
  secureCookies,
  userJson,
} from "./context.ts";
import { ApiError } from "./errors.ts";
import { upstreamFailure } from "./game_accounts.ts";
import { passwordProblem } from "./passwords.ts";
import {
  canChangeUser,
  canDeleteUser,
  canListUsers,
  canReadUser,
  hasAll,
  PERM,
  type UserChange,
} from "./permissions.ts";
import { nameKey } from "./schema.ts";
import type { GameProfile, UserPatch } from "./store.ts";
import type { UserRecord } from "./store_rows.ts";
import { intField, onlyFields, pathId, readJson, stringField, usernameProblem } from "./validate.ts";

/** Checks the requester's `current_password` (spec 2 §5 item 1); failures count against their login limit. */
export async function checkCurrentPassword(ctx: AccountsContext, user: UserRecord, password: string): Promise<void> {
  const now = ctx.clock.now();
  const key = nameKey(user.username);
  const wait = ctx.loginByAccount.retryAfter(key, now);
  if (wait > 0) {
    const secs = Math.ceil(wait / 1000);
    throw new ApiError("rate_limited", `too many wrong passwords; try again in ${secs} s`, {
      "Retry-After": String(secs),
    });
  }
  if (!(await ctx.hasher.verify(password, user.passwordHash))) {
    ctx.loginByAccount.fail(key, now);
    throw new ApiError("wrong_current_password", "current_password is not your password");
  }
}

async function targetUser(ctx: AccountsContext, c: Ctx, actor: UserRecord): Promise<UserRecord> {
  const id = pathId(c.req.param("id")!, "user");
  // Someone who may not manage users learns nothing about other ids.
  const manager = hasAll(actor.permissions, PERM.USER_MANAGEMENT) || hasAll(actor.permissions, PERM.GROUP_MANAGEMENT);
  if (id !== actor.id && !manager) {
    throw new ApiError("permission_denied", `Cannot act on user ${id}: requires USER_MANAGEMENT`);
  }
  const user = await ctx.store.user(id);
  if (!user) throw new ApiError("user_not_found", `user ${id} does not exist`);
  return user;
}

async function linkedGame(ctx: AccountsContext, gameId: number): Promise<GameProfile> {
  if (gameId < 1 || gameId > 2147483647) {
    throw new ApiError("invalid_game_account", `game id ${gameId} is out of range`);
  }
  let profile: GameProfile | null;
  try {
    profile = await ctx.games.byId(gameId);
  } catch (error) {
    throw upstreamFailure(error);
  }
  if (!profile) throw new ApiError("game_account_not_found", `there is no game account with id ${gameId}`);
  return profile;
}

/** Registers the user routes (without POST) and the visited routes. */
export function userRoutes(app: Hono<AccountsEnv>, ctx: AccountsContext): void {
  app.get("/api/auth/users", async (c) => {
    const { user } = requireAuth(c);
    enforce(canListUsers(actorOf(user)));
    return c.json((await ctx.store.users()).map(userJson));
  });

  app.get("/api/auth/users/:id", async (c) => {
    const { user } = requireAuth(c);
    const id = pathId(c.req.param("id"), "user");
    enforce(canReadUser(actorOf(user), id));
    const found = await ctx.store.user(id);
    if (!found) throw new ApiError("user_not_found", `user ${id} does not exist`);
    return c.json(userJson(found));
  });

  app.patch("/api/auth/users/:id", async (c) => {
    const { user: actor } = requireAuth(c);
    const body = await readJson(c.req.raw);
    onlyFields(body, ["current_password", "username", "password", "group_id", "game_id"]);
    const current = stringField(body, "current_password", true);
    const username = stringField(body, "username");
    const password = stringField(body, "password");
    const groupId = intField(body, "group_id");
    const gameId = intField(body, "game_id", true);
    if (groupId === null) throw new ApiError("invalid_request", "group_id must be an integer");
    const target = await targetUser(ctx, c, actor);
    if (username !== undefined) {
      const problem = usernameProblem(username);
      if (problem) throw new ApiError("invalid_username", problem);
    }
    if (password !== undefined) {
      const problem = passwordProblem(password);
      if (problem) throw new ApiError("invalid_password", problem);
    }
    const change: { -readonly [K in keyof UserChange]: UserChange[K] } = {
      username: username !== undefined && username !== target.username,
      password: password !== undefined,
      gameId: gameId !== undefined && gameId !== target.gameId,
    };
    if (groupId !== undefined && groupId !== target.groupId) {
      const group = await ctx.store.group(groupId);
      if (!group) throw new ApiError("unknown_group", `group ${groupId} does not exist`);
      change.groupPermissions = group.permissions;
    }
    enforce(canChangeUser(actorOf(actor), target, change));
    await checkCurrentPassword(ctx, actor, current);
    const patch: { -readonly [K in keyof UserPatch]: UserPatch[K] } = {};
    if (change.username) patch.username = username!;
    if (change.password) patch.passwordHash = await ctx.hasher.hash(password!);
    if (change.groupPermissions !== undefined) patch.groupId = groupId!;
    if (change.gameId) {
      patch.game = gameId === null || gameId === undefined ? null : await linkedGame(ctx, gameId);
      patch.nextSyncAt = patch.game ? ctx.clock.now() + ctx.syncIntervalMs : null;
    }
    const updated = await ctx.store.updateUser(target.id, patch);
    if (change.password) {
      // A new password ends every other session of the user (the requester keeps theirs).
      const ended = await ctx.sessions.revokeAll(target.id, target.id === actor.id ? c.get("sessionToken") : null);
      ctx.log.info("password changed", { user: target.id, by: actor.id, sessions_ended: ended });
    }
    if (change.groupPermissions !== undefined || change.gameId || change.username) {
      ctx.log.info("user changed", { user: target.id, by: actor.id, fields: Object.keys(patch).join(",") });
    }
    return c.json(userJson(updated));
  });

  app.delete("/api/auth/users/:id", async (c) => {
    const { user: actor } = requireAuth(c);
    const target = await targetUser(ctx, c, actor);
    enforce(canDeleteUser(actorOf(actor), target));
    await ctx.store.deleteUser(target.id);
    if (target.id === actor.id) {
      for (const v of ctx.sessions.clearCookies(secureCookies(ctx, c))) c.header("Set-Cookie", v, { append: true });
    }
    ctx.log.info("user deleted", { user: target.id, by: actor.id });
    return c.json({ message: "success" });
  });

  app.get("/api/auth/visited", async (c) => {
    const { user } = requireAuth(c);
    enforce(canListUsers(actorOf(user)));
    return c.json((await ctx.visited.list()).map((game_id) => ({ game_id })));
  });

  app.get("/api/auth/visited/count", async (c) => c.json(await ctx.visited.count()));
}
