/**
 * Permission bits of user groups (spec 2 §2.1) and the access policy of the
 * account backend. Spec 2 §5 item 6 and §7 leave the policy open; this is
 * the least-privilege answer documented in `docs/accounts.md`:
 *
 * - Lists of users and of visited game accounts need USER_MANAGEMENT; a user
 *   reads themself. Groups are listed by user or group managers; everyone
 *   reads their own group.
 * - Acting on another user needs the right bit *and* that the actor
 *   outranks the target: the target's bits are a subset of the actor's, and
 *   an IMPORTANT target (admins, roots) is managed by a root only.
 * - Nobody grants bits they do not hold: a group assigned or created or
 *   edited must have permissions that are a subset of the actor's.
 * - The last root (a user in a group holding ALL) cannot be demoted,
 *   deleted, or have their group weakened or removed (checked by the store).
 *
 * All functions are pure.
 *
 * @module
 */

/** Permission bits (spec 2 §2.1; IMPORT is spelled IMPORTANT as in the initial-group table). */
export const PERM = {
  NONE: 0,
  IMPORTANT: 0x00000001,
  USER_MANAGEMENT: 0x00000002,
  GROUP_MANAGEMENT: 0x00000004,
  ALL: 0xffffffff,
} as const;

/** Names of the single bits, for messages. */
const BIT_NAMES: ReadonlyArray<readonly [number, string]> = [
  [PERM.IMPORTANT, "IMPORTANT"],
  [PERM.USER_MANAGEMENT, "USER_MANAGEMENT"],
  [PERM.GROUP_MANAGEMENT, "GROUP_MANAGEMENT"],
];

/** The seeded groups (spec 2 §2.1). */
export const SEED_GROUPS = [
  { id: 1, name: "root", permissions: PERM.ALL },
  { id: 2, name: "admin", permissions: PERM.IMPORTANT | PERM.USER_MANAGEMENT },
  { id: 3, name: "user", permissions: PERM.NONE },
] as const;

/** Group of new users (spec 2 §2.1). */
export const DEFAULT_GROUP_ID = 3;

/** True when `value` is a valid permission mask: an integer in 0..0xffffffff. */
export function isPermissionMask(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= PERM.ALL;
}

/** True when `perms` holds every bit of `bits`. */
export function hasAll(perms: number, bits: number): boolean {
  return ((perms & bits) >>> 0) === bits >>> 0;
}

/** True when every bit of `inner` is in `outer`. */
export function isSubset(inner: number, outer: number): boolean {
  return ((inner & ~outer) >>> 0) === 0;
}

/** True for a root: a group holding every bit. */
export function isRootMask(perms: number): boolean {
  return perms >>> 0 === PERM.ALL;
}

/** `USER_MANAGEMENT`, `IMPORTANT | GROUP_MANAGEMENT`, `ALL`, or the hex value for other bits. */
export function describeBits(bits: number): string {
  if (isRootMask(bits)) return "ALL";
  const names = BIT_NAMES.filter(([bit]) => hasAll(bits, bit)).map(([, name]) => name);
  const known = BIT_NAMES.reduce((acc, [bit]) => acc | bit, 0);
  const rest = (bits & ~known) >>> 0;
  if (rest) names.push(`0x${rest.toString(16).padStart(8, "0")}`);
  return names.length ? names.join(" | ") : "NONE";
}

/** Who is acting: their user id and their group's permissions. */
export interface Actor {
  readonly id: number;
  readonly permissions: number;
}

/** A user being acted on. */
export interface Target {
  readonly id: number;
  readonly permissions: number;
}

/** A decision: allowed, or refused with the reason shown to the client. */
export type Decision = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const ALLOW: Decision = { ok: true };

function deny(reason: string): Decision {
  return { ok: false, reason };
}

function requireBits(actor: Actor, bits: number, action: string): Decision {
  return hasAll(actor.permissions, bits) ? ALLOW : deny(`Cannot ${action}: requires ${describeBits(bits)}`);
}

/**
 * True when `actor` may act on `target` as a manager: the target's bits are
 * a subset of the actor's, and an IMPORTANT target is managed by roots only.
 * Everyone "outranks" themself.
 */
export function outranks(actor: Actor, target: Target): boolean {
  if (actor.id === target.id) return true;
  if (!isSubset(target.permissions, actor.permissions)) return false;
  return !hasAll(target.permissions, PERM.IMPORTANT) || isRootMask(actor.permissions);
}

/** GET /users and GET /visited: user managers only (the original served both to anyone). */
export function canListUsers(actor: Actor): Decision {
  return requireBits(actor, PERM.USER_MANAGEMENT, "list users");
}

/** GET /users/<id>: yourself, or a user manager. */
export function canReadUser(actor: Actor, targetId: number): Decision {
  return actor.id === targetId ? ALLOW : requireBits(actor, PERM.USER_MANAGEMENT, `read user ${targetId}`);
}

/** What a PATCH /users/<id> changes. */
export interface UserChange {
  readonly username?: boolean;
  readonly password?: boolean;
  readonly gameId?: boolean;
  /** Permissions of the new group, when `group_id` changes. */
  readonly groupPermissions?: number;
}

/**
 * PATCH /users/<id> (the requester's `current_password` is checked
 * separately). Your own name and password are yours; another user's need
 * USER_MANAGEMENT and outranking. The game account link needs
 * USER_MANAGEMENT even for yourself (linking otherwise takes the room-name
 * proof). The group needs GROUP_MANAGEMENT, outranking, and a new group
 * whose bits you hold.
 */
export function canChangeUser(actor: Actor, target: Target, change: UserChange): Decision {
  const self = actor.id === target.id;
  const what = self ? "change your own account" : `change user ${target.id}`;
  if (!self && !outranks(actor, target)) {
    return deny(`Cannot ${what}: the user holds permissions you do not (${describeBits(target.permissions)})`);
  }
  if ((change.username || change.password) && !self) {
    const d = requireBits(actor, PERM.USER_MANAGEMENT, `change the name or password of user ${target.id}`);
    if (!d.ok) return d;
  }
  if (change.gameId) {
    const d = requireBits(actor, PERM.USER_MANAGEMENT, "change a linked game account");
    if (!d.ok) return d;
  }
  if (change.groupPermissions !== undefined) {
    const d = requireBits(actor, PERM.GROUP_MANAGEMENT, "change a user's group");
    if (!d.ok) return d;
    if (!isSubset(change.groupPermissions, actor.permissions)) {
      return deny(
        `Cannot assign a group with ${describeBits(change.groupPermissions)}: you may grant only permissions you hold`,
      );
    }
  }
  return ALLOW;
}

/** DELETE /users/<id>: user managers, on users they outrank. */
export function canDeleteUser(actor: Actor, target: Target): Decision {
  const d = requireBits(actor, PERM.USER_MANAGEMENT, `delete user ${target.id}`);
  if (!d.ok) return d;
  return outranks(actor, target)
    ? ALLOW
    : deny(`Cannot delete user ${target.id}: the user holds permissions you do not`);
}

/**
 * POST /users with a `group_id` other than the default (spec 2 §5 item 1):
 * GROUP_MANAGEMENT, and a group whose bits the actor holds.
 */
export function canCreateUserInGroup(actor: Actor | null, groupPermissions: number): Decision {
  if (!actor) return deny("Cannot choose a group: log in with GROUP_MANAGEMENT");
  const d = requireBits(actor, PERM.GROUP_MANAGEMENT, "create a user in another group");
  if (!d.ok) return d;
  return isSubset(groupPermissions, actor.permissions)
    ? ALLOW
    : deny(`Cannot assign a group with ${describeBits(groupPermissions)}: you may grant only permissions you hold`);
}

/** GET /groups: user or group managers (the original served it to anyone). */
export function canListGroups(actor: Actor): Decision {
  return hasAll(actor.permissions, PERM.USER_MANAGEMENT) || hasAll(actor.permissions, PERM.GROUP_MANAGEMENT)
    ? ALLOW
    : deny("Cannot list groups: requires USER_MANAGEMENT or GROUP_MANAGEMENT");
}

/** GET /groups/<id>: your own group, or as a user or group manager. */
export function canReadGroup(actor: Actor, ownGroupId: number, groupId: number): Decision {
  return ownGroupId === groupId ? ALLOW : canListGroups(actor);
}

/** POST /groups and PATCH /groups/<id>: GROUP_MANAGEMENT; old and new bits within the actor's. */
export function canWriteGroup(actor: Actor, newPermissions: number, oldPermissions: number | null): Decision {
  const d = requireBits(actor, PERM.GROUP_MANAGEMENT, oldPermissions === null ? "create groups" : "change groups");
  if (!d.ok) return d;
  if (oldPermissions !== null && !isSubset(oldPermissions, actor.permissions)) {
    return deny(`Cannot change a group with ${describeBits(oldPermissions)}: it holds permissions you do not`);
  }
  return isSubset(newPermissions, actor.permissions)
    ? ALLOW
    : deny(`Cannot grant ${describeBits(newPermissions)}: you may grant only permissions you hold`);
}

/** DELETE /groups/<id>: GROUP_MANAGEMENT on a group whose bits the actor holds. */
export function canDeleteGroup(actor: Actor, groupPermissions: number): Decision {
  const d = requireBits(actor, PERM.GROUP_MANAGEMENT, "delete groups");
  if (!d.ok) return d;
  return isSubset(groupPermissions, actor.permissions)
    ? ALLOW
    : deny(`Cannot delete a group with ${describeBits(groupPermissions)}: it holds permissions you do not`);
}
