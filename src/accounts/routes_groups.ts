/**
 * `/api/auth/groups[/<id>]` (spec 2 §4.1) under the policy of
 * `permissions.ts`. Fixed from the original: listing and reading need a
 * session (your own group, or user/group management), creating a group
 * works (the original parsed it with the update schema and always failed),
 * an unknown id is 404 (not 200 `{}`), `permissions: 0` is honoured, and
 * nobody grants bits they lack or strips the last root's group.
 *
 * @module
 */

import type { Hono } from "hono";
import { type AccountsContext, type AccountsEnv, actorOf, enforce, requireAuth } from "./context.ts";
import { ApiError } from "./errors.ts";
import {
  canDeleteGroup,
  canListGroups,
  canReadGroup,
  canWriteGroup,
  hasAll,
  isPermissionMask,
  PERM,
} from "./permissions.ts";
import { checkCurrentPassword } from "./routes_users.ts";
import type { GroupPatch } from "./store.ts";
import type { GroupRecord } from "./store_rows.ts";
import { groupNameProblem, type JsonBody, onlyFields, pathId, readJson, stringField } from "./validate.ts";

function groupJson(g: GroupRecord): Record<string, unknown> {
  return { id: g.id, name: g.name, permissions: g.permissions };
}

function groupName(body: JsonBody, required: boolean): string | undefined {
  const name = required ? stringField(body, "name", true) : stringField(body, "name");
  if (name === undefined) return undefined;
  const problem = groupNameProblem(name);
  if (problem) throw new ApiError("invalid_group_name", problem);
  return name;
}

function permissions(body: JsonBody, required: boolean): number | undefined {
  const v = body.permissions;
  if (v === undefined) {
    if (required) throw new ApiError("invalid_request", "permissions is required");
    return undefined;
  }
  if (typeof v !== "number" || !Number.isInteger(v)) {
    throw new ApiError("invalid_request", "permissions must be an integer");
  }
  if (!isPermissionMask(v)) throw new ApiError("invalid_permissions", "permissions must be between 0 and 4294967295");
  return v;
}

/** Registers the group routes. */
export function groupRoutes(app: Hono<AccountsEnv>, ctx: AccountsContext): void {
  app.get("/api/auth/groups", async (c) => {
    const { user } = requireAuth(c);
    enforce(canListGroups(actorOf(user)));
    return c.json((await ctx.store.groups()).map(groupJson));
  });

  app.get("/api/auth/groups/:id", async (c) => {
    const { user } = requireAuth(c);
    const id = pathId(c.req.param("id"), "group");
    enforce(canReadGroup(actorOf(user), user.groupId, id));
    const group = await ctx.store.group(id);
    if (!group) throw new ApiError("group_not_found", `group ${id} does not exist`);
    return c.json(groupJson(group));
  });

  app.post("/api/auth/groups", async (c) => {
    const { user } = requireAuth(c);
    const body = await readJson(c.req.raw);
    onlyFields(body, ["name", "permissions"]);
    const name = groupName(body, true)!;
    const perms = permissions(body, true)!;
    enforce(canWriteGroup(actorOf(user), perms, null));
    const group = await ctx.store.createGroup(name, perms);
    ctx.log.info("group created", { group: group.id, by: user.id, permissions: perms });
    return c.json(groupJson(group), 201);
  });

  app.patch("/api/auth/groups/:id", async (c) => {
    const { user } = requireAuth(c);
    const id = pathId(c.req.param("id"), "group");
    const body = await readJson(c.req.raw);
    onlyFields(body, ["current_password", "name", "permissions"]);
    const current = stringField(body, "current_password", true);
    const name = groupName(body, false);
    const perms = permissions(body, false);
    if (!hasAll(user.permissions, PERM.GROUP_MANAGEMENT)) {
      throw new ApiError("permission_denied", "Cannot change groups: requires GROUP_MANAGEMENT");
    }
    const group = await ctx.store.group(id);
    if (!group) throw new ApiError("group_not_found", `group ${id} does not exist`);
    enforce(canWriteGroup(actorOf(user), perms ?? group.permissions, group.permissions));
    await checkCurrentPassword(ctx, user, current);
    const patch: { -readonly [K in keyof GroupPatch]: GroupPatch[K] } = {};
    if (name !== undefined) patch.name = name;
    if (perms !== undefined) patch.permissions = perms;
    const updated = await ctx.store.updateGroup(id, patch);
    ctx.log.info("group changed", { group: id, by: user.id, permissions: updated.permissions });
    return c.json(groupJson(updated));
  });

  app.delete("/api/auth/groups/:id", async (c) => {
    const { user } = requireAuth(c);
    const id = pathId(c.req.param("id"), "group");
    if (!hasAll(user.permissions, PERM.GROUP_MANAGEMENT)) {
      throw new ApiError("permission_denied", "Cannot delete groups: requires GROUP_MANAGEMENT");
    }
    const group = await ctx.store.group(id);
    if (!group) throw new ApiError("group_not_found", `group ${id} does not exist`);
    enforce(canDeleteGroup(actorOf(user), group.permissions));
    await ctx.store.deleteGroup(id);
    ctx.log.info("group deleted", { group: id, by: user.id });
    return c.json({ message: "success" });
  });
}
