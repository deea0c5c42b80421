/**
 * `user_manager` (spec 2 §4.4, §5.3; port 2345): accounts of the site bound
 * to game accounts. Bodies and status texts follow the original (peers §5.1)
 * where its pages depend on them, with its flaws fixed: role passwords are
 * Argon2id hashes from the configuration (not plain text in the source),
 * login and info never return a password or hash, `update_account` exists,
 * and repeated password failures lock the caller out.
 *
 * @module
 */

import { Hono } from "hono";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { clientIp, type CompanionEnv, failure, positiveId, success, withFields } from "./http_util.ts";
import { lockedMessage, Lockout, type LockoutPolicy } from "./lockout.ts";
import { MAX_PASSWORD_LENGTH, type PasswordHasher, type Role, type RoleHashes, roleOf } from "./passwords.ts";
import type { PlayerDirectory } from "./players.ts";
import { isRefusal, nameProblem, parseChanges, passwordProblem, type Refusal } from "./user_changes.ts";
import { type Conflict, publicUser, type UserPatch, type UserRow, type UserStore } from "./user_store.ts";

/** Dependencies of {@link userManagerApp}. */
export interface UserManagerDeps {
  readonly store: UserStore;
  readonly hasher: PasswordHasher;
  readonly roles: RoleHashes;
  readonly players: PlayerDirectory;
  readonly clock: Clock;
  readonly log: Logger;
  readonly lockout: LockoutPolicy;
  /** Called when a user's game account was bound or changed (the profile refresh looks at once). */
  readonly onBound?: () => void;
}

/** Most users one batch may touch. */
export const MAX_BATCH = 1000;

const CONFLICT_TEXT: Record<Conflict, Refusal> = {
  name_taken: { status: 400, message: "Username already exists" },
  game_taken: { status: 400, message: "Phira account already bound" },
  not_found: { status: 404, message: "User not found" },
};

function refuse(r: Refusal): Response {
  return failure(r.status, r.message);
}

/** Builds the service. */
export function userManagerApp(d: UserManagerDeps): Hono<CompanionEnv> {
  const app = new Hono<CompanionEnv>();
  const logins = new Lockout(d.lockout);
  const roleFailures = new Lockout(d.lockout);
  // Each registration hashes a password: at most 10 an hour per address.
  const registrations = new Lockout({ max_failures: 10, window_secs: 3600, lockout_secs: 3600 });
  const now = () => d.clock.now();

  /** Checks a role password, counting failures per address. */
  const authorize = async (ip: string, password: unknown): Promise<Role | Response> => {
    const locked = roleFailures.lockedFor(ip, now());
    if (locked) return failure(429, lockedMessage(locked), { "retry-after": String(Math.ceil(locked / 1000)) });
    const role = await roleOf(d.hasher, d.roles, password);
    if (!role) {
      roleFailures.fail(ip, now());
      d.log.warn("role password refused", { ip });
      return failure(
        403,
        d.roles.admin || d.roles.super ? "Unauthorized" : "Unauthorized: no role password is configured",
      );
    }
    roleFailures.succeed(ip);
    return role;
  };

  /** Checks a user's own password, counting failures per address. */
  const checkUser = async (ip: string, user: UserRow | null, password: unknown): Promise<Response | null> => {
    const locked = logins.lockedFor(ip, now());
    if (locked) return failure(429, lockedMessage(locked), { "retry-after": String(Math.ceil(locked / 1000)) });
    if (!user) {
      // An unknown name counts as a failure too, so names cannot be probed without limit.
      logins.fail(ip, now());
      return null;
    }
    const ok = typeof password === "string" && password.length <= MAX_PASSWORD_LENGTH &&
      await d.hasher.verify(user.password, password);
    if (ok) {
      logins.succeed(ip);
      return null;
    }
    logins.fail(ip, now());
    return failure(401, "Incorrect password");
  };

  /** Hashes a plain password in a patch. */
  const hashPatch = async (patch: UserPatch): Promise<UserPatch> =>
    patch.password === undefined ? patch : { ...patch, password: await d.hasher.hash(patch.password) };

  const applyPatch = async (id: number, patch: UserPatch): Promise<UserRow | Refusal> => {
    let full = patch;
    if (patch.game_id !== undefined && patch.game_name === undefined) {
      const found = await d.players.lookup(patch.game_id);
      full = { ...patch, game_name: found.name ?? "" };
    }
    const result = await d.store.update(id, await hashPatch(full));
    if (typeof result === "string") return CONFLICT_TEXT[result];
    if (patch.game_id !== undefined) d.onBound?.();
    return result;
  };

  app.post("/register", (c) =>
    withFields(c, async (f) => {
      const ip = clientIp(c);
      const gameId = positiveId(f.game_id ?? f.phira_id);
      if (typeof f.name !== "string" || typeof f.password !== "string" || (f.game_id ?? f.phira_id) === undefined) {
        return failure(400, "Missing parameters");
      }
      const problem = nameProblem(f.name) ?? passwordProblem(f.password) ??
        (gameId === null ? "Phira id must be a positive integer" : null);
      if (problem) return failure(400, problem);
      const locked = registrations.lockedFor(ip, now());
      if (locked) return failure(429, `Too many registrations; try again in ${Math.ceil(locked / 60000)} min`);
      registrations.fail(ip, now());
      const found = await d.players.lookup(gameId!);
      if (!found.known) return failure(400, "Phira account not found (it has to play on this server first)");
      const row = await d.store.insert({
        name: f.name,
        game_id: gameId!,
        game_name: found.name ?? "",
        password: await d.hasher.hash(f.password),
      }, now());
      if (typeof row === "string") return refuse(CONFLICT_TEXT[row]);
      d.log.info("user registered", { user: row.game_id, id: row.id });
      d.onBound?.();
      return success("Registration successful", { user: publicUser(row) });
    }));

  app.post("/login", (c) =>
    withFields(c, async (f) => {
      if (typeof f.name !== "string" || typeof f.password !== "string") return failure(400, "Missing parameters");
      const user = await d.store.byName(f.name);
      const refused = await checkUser(clientIp(c), user, f.password);
      if (refused) return refused;
      if (!user) return failure(404, "Username not found");
      return success(null, { user: publicUser(user) });
    }));

  app.post("/update_account", (c) =>
    withFields(c, async (f) => {
      const id = positiveId(f.user_id);
      if (id === null || typeof f.current_password !== "string") return failure(400, "Missing parameters");
      if (f.new_username === undefined && f.new_password === undefined) return failure(400, "No changes");
      const user = await d.store.byId(id);
      const refused = await checkUser(clientIp(c), user, f.current_password);
      if (refused) return refused;
      if (!user) return failure(404, "User not found");
      const patch: UserPatch = {};
      if (f.new_username !== undefined) {
        const problem = nameProblem(f.new_username);
        if (problem) return failure(400, problem);
        patch.name = f.new_username as string;
      }
      if (f.new_password !== undefined) {
        const problem = passwordProblem(f.new_password);
        if (problem) return failure(400, problem);
        patch.password = f.new_password as string;
      }
      const result = await applyPatch(id, patch);
      if (isRefusal(result)) return refuse(result);
      d.log.info("account updated", { id, fields: Object.keys(patch).join(",") });
      return success("Account updated", { user: publicUser(result) });
    }));

  app.post("/info", (c) =>
    withFields(c, async (f) => {
      const role = await authorize(clientIp(c), f.password);
      if (role instanceof Response) return role;
      const id = positiveId(f.id);
      const user = id === null ? null : await d.store.byId(id);
      if (!user) return failure(404, "User not found");
      return success(null, { role, user: publicUser(user) });
    }));

  const updateOne = async (ip: string, password: unknown, idValue: unknown, changes: unknown): Promise<Response> => {
    const role = await authorize(ip, password);
    if (role instanceof Response) return role;
    const id = positiveId(idValue);
    if (id === null) return failure(400, "Missing parameters");
    const patch = parseChanges(changes, role);
    if (isRefusal(patch)) return refuse(patch);
    const result = await applyPatch(id, patch);
    if (isRefusal(result)) return refuse(result);
    d.log.info("user updated by an administrator", { id, role, ip, fields: Object.keys(patch).join(",") });
    return success("User updated", { user: publicUser(result) });
  };

  app.post("/info_changer", (c) => withFields(c, (f) => updateOne(clientIp(c), f.password, f.id, f.changes)));
  app.post("/admin/update", (c) => withFields(c, (f) => updateOne(clientIp(c), f.password, f.user_id, f.changes)));

  app.post("/admin/users", (c) =>
    withFields(c, async (f) => {
      const role = await authorize(clientIp(c), f.password);
      if (role instanceof Response) return role;
      return success(null, { role, users: (await d.store.list()).map(publicUser) });
    }));

  app.post("/admin/batch-update", (c) =>
    withFields(c, async (f) => {
      const role = await authorize(clientIp(c), f.password);
      if (role instanceof Response) return role;
      if (!Array.isArray(f.user_ids) || f.user_ids.length === 0) {
        return failure(400, "user_ids must be a non-empty list");
      }
      if (f.user_ids.length > MAX_BATCH) return failure(400, `At most ${MAX_BATCH} users per batch`);
      const patch = parseChanges(f.changes, role, true);
      if (isRefusal(patch)) return refuse(patch);
      const hashed = await hashPatch(patch);
      const results: { user_id: unknown; status: string; message: string }[] = [];
      for (const raw of f.user_ids) {
        const id = positiveId(raw);
        if (id === null) {
          results.push({ user_id: raw, status: "error", message: "Invalid user id" });
          continue;
        }
        const result = await d.store.update(id, hashed);
        results.push(
          typeof result === "string"
            ? { user_id: id, status: "error", message: CONFLICT_TEXT[result].message }
            : { user_id: id, status: "success", message: "User updated" },
        );
      }
      const updated = results.filter((r) => r.status === "success").length;
      d.log.info("users updated in a batch", { role, ip: clientIp(c), updated, fields: Object.keys(patch).join(",") });
      return success(`${updated} of ${results.length} users updated`, { results });
    }));

  app.get("/users/total", async () => success(null, { total_users: await d.store.count() }));

  return app;
}
