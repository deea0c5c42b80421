import { deepEqual, equal } from "node:assert/strict";
import {
  canChangeUser,
  canCreateUserInGroup,
  canDeleteGroup,
  canDeleteUser,
  canListGroups,
  canListUsers,
  canReadGroup,
  canReadUser,
  canWriteGroup,
  describeBits,
  hasAll,
  isPermissionMask,
  isSubset,
  outranks,
  PERM,
} from "./permissions.ts";

const root = { id: 1, permissions: PERM.ALL };
const admin = { id: 2, permissions: PERM.IMPORTANT | PERM.USER_MANAGEMENT };
const admin2 = { id: 3, permissions: PERM.IMPORTANT | PERM.USER_MANAGEMENT };
const mod = { id: 4, permissions: PERM.USER_MANAGEMENT };
const grouper = { id: 5, permissions: PERM.GROUP_MANAGEMENT };
const user = { id: 6, permissions: PERM.NONE };
const user2 = { id: 7, permissions: PERM.NONE };

Deno.test("bit helpers treat masks as unsigned 32-bit", () => {
  equal(hasAll(PERM.ALL, PERM.GROUP_MANAGEMENT), true);
  equal(hasAll(PERM.USER_MANAGEMENT, PERM.USER_MANAGEMENT | PERM.IMPORTANT), false);
  equal(isSubset(PERM.ALL, PERM.ALL), true);
  equal(isSubset(0x80000000, PERM.ALL), true);
  equal(isSubset(PERM.ALL, 0x7fffffff), false);
  equal(isPermissionMask(0), true);
  equal(isPermissionMask(PERM.ALL), true);
  equal(isPermissionMask(PERM.ALL + 1), false);
  equal(isPermissionMask(-1), false);
  equal(isPermissionMask(1.5), false);
  equal(describeBits(PERM.ALL), "ALL");
  equal(describeBits(0), "NONE");
  equal(describeBits(PERM.IMPORTANT | PERM.USER_MANAGEMENT), "IMPORTANT | USER_MANAGEMENT");
  equal(describeBits(0x12), "USER_MANAGEMENT | 0x00000010");
});

Deno.test("outranking: subsets of your bits, IMPORTANT only by roots, yourself always", () => {
  deepEqual(
    [
      outranks(root, admin),
      outranks(admin, admin2),
      outranks(admin, user),
      outranks(mod, mod),
      outranks(mod, { id: 99, permissions: PERM.USER_MANAGEMENT }),
      outranks(mod, admin),
      outranks(user, user2),
    ],
    [true, false, true, true, true, false, true],
  );
});

Deno.test("reading and listing", () => {
  equal(canListUsers(user).ok, false);
  equal(canListUsers(mod).ok, true);
  equal(canReadUser(user, user.id).ok, true);
  equal(canReadUser(user, user2.id).ok, false);
  equal(canListGroups(user).ok, false);
  equal(canListGroups(grouper).ok, true);
  equal(canListGroups(mod).ok, true);
  equal(canReadGroup(user, 3, 3).ok, true);
  equal(canReadGroup(user, 3, 1).ok, false);
});

Deno.test("changing users: own name and password, management for others, groups within your bits", () => {
  equal(canChangeUser(user, user, { username: true, password: true }).ok, true);
  equal(canChangeUser(user, user, { gameId: true }).ok, false);
  equal(canChangeUser(user, user, { groupPermissions: 0 }).ok, false);
  equal(canChangeUser(user, user2, { username: true }).ok, false);
  equal(canChangeUser(mod, user, { password: true, gameId: true }).ok, true);
  equal(canChangeUser(admin, admin2, { username: true }).ok, false);
  equal(canChangeUser(admin, root, { password: true }).ok, false);
  equal(canChangeUser(root, admin, { groupPermissions: PERM.NONE }).ok, true);
  equal(canChangeUser(grouper, user, { groupPermissions: PERM.GROUP_MANAGEMENT }).ok, true);
  equal(canChangeUser(grouper, user, { groupPermissions: PERM.USER_MANAGEMENT }).ok, false);
  equal(canChangeUser(grouper, grouper, { groupPermissions: PERM.NONE }).ok, true, "step down");
  const refused = canChangeUser(grouper, user, { groupPermissions: PERM.ALL });
  deepEqual(refused, { ok: false, reason: "Cannot assign a group with ALL: you may grant only permissions you hold" });
});

Deno.test("deleting users, creating users in groups, writing and deleting groups", () => {
  equal(canDeleteUser(user, user).ok, false, "no self-deletion without USER_MANAGEMENT");
  equal(canDeleteUser(mod, user).ok, true);
  equal(canDeleteUser(admin, admin2).ok, false);
  equal(canDeleteUser(root, admin).ok, true);
  equal(canCreateUserInGroup(null, 0).ok, false);
  equal(canCreateUserInGroup(mod, 0).ok, false);
  equal(canCreateUserInGroup(grouper, PERM.GROUP_MANAGEMENT).ok, true);
  equal(canCreateUserInGroup(grouper, PERM.ALL).ok, false);
  equal(canWriteGroup(mod, 0, null).ok, false);
  equal(canWriteGroup(grouper, PERM.GROUP_MANAGEMENT, null).ok, true);
  equal(canWriteGroup(grouper, 0, PERM.ALL).ok, false, "cannot weaken a group above you");
  equal(canWriteGroup(root, 0, PERM.ALL).ok, true);
  equal(canDeleteGroup(grouper, PERM.IMPORTANT).ok, false);
  equal(canDeleteGroup(grouper, 0).ok, true);
});
