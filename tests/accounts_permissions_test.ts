/**
 * Account backend: who may list, read, change and delete users and groups
 * (docs/accounts.md "Permissions"), each flaw of the original refused, and
 * the last root kept — over the HTTP app in process.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { PERM } from "../src/accounts/mod.ts";
import { addUser, type Answer, ManualRoomSource, ROOT_PASSWORD, startTestAccounts } from "./support/accounts.ts";
import { settle } from "./support/harness.ts";

const PW = "password-123";

function code(a: Answer): string {
  return (a.body as { code?: string }).code ?? "";
}

function expect(a: Answer, status: number, c?: string): void {
  equal(a.status, status, JSON.stringify(a.body));
  if (c) equal(code(a), c);
}

async function world() {
  const t = await startTestAccounts();
  const root = await t.login("root", ROOT_PASSWORD);
  const adminId = await addUser(t, "admin1", PW, 2);
  const admin2Id = await addUser(t, "admin2", PW, 2);
  const aliceId = await addUser(t, "alice", PW, 3, 100);
  const bobId = await addUser(t, "bob", PW, 3, 200);
  const admin = await t.login("admin1", PW);
  const alice = await t.login("alice", PW);
  const bob = await t.login("bob", PW);
  return { t, root, admin, alice, bob, adminId, admin2Id, aliceId, bobId };
}

Deno.test("user lists and reads need a session and USER_MANAGEMENT; everyone reads themself (the original listed users to anyone)", async () => {
  const w = await world();
  try {
    expect(await w.t.client().get("/api/auth/users"), 401, "unauthenticated");
    expect(await w.alice.get("/api/auth/users"), 403, "permission_denied");
    const list = await w.admin.get("/api/auth/users");
    expect(list, 200);
    deepEqual((list.body as { username: string }[]).map((u) => u.username), [
      "root",
      "admin1",
      "admin2",
      "alice",
      "bob",
    ]);
    ok(!JSON.stringify(list.body).includes("argon2"), "no password hashes");
    expect(await w.alice.get(`/api/auth/users/${w.aliceId}`), 200);
    expect(await w.alice.get(`/api/auth/users/${w.bobId}`), 403, "permission_denied");
    expect(await w.admin.get(`/api/auth/users/${w.bobId}`), 200);
    expect(await w.admin.get("/api/auth/users/999"), 404, "user_not_found");
    expect(await w.admin.get("/api/auth/users/abc"), 400, "invalid_id");
    expect(await w.admin.get("/api/auth/users/0"), 400, "invalid_id");
  } finally {
    await w.t.close();
  }
});

Deno.test("PATCH: yourself with current_password; the game link and groups need management bits", async () => {
  const w = await world();
  try {
    const me = `/api/auth/users/${w.aliceId}`;
    expect(await w.alice.patch(me, { username: "alice2" }), 400, "invalid_request");
    expect(
      await w.alice.patch(me, { current_password: "wrong-password", username: "alice2" }),
      403,
      "wrong_current_password",
    );
    expect(await w.alice.patch(me, { current_password: PW, username: "a b" }), 422, "invalid_username");
    expect(await w.alice.patch(me, { current_password: PW, password: "short" }), 422, "invalid_password");
    expect(await w.alice.patch(me, { current_password: PW, username: "BOB" }), 409, "username_taken");
    expect(await w.alice.patch(me, { current_password: PW, game_id: 555 }), 403, "permission_denied");
    expect(await w.alice.patch(me, { current_password: PW, group_id: 2 }), 403, "permission_denied");
    expect(await w.alice.patch(me, { current_password: PW, group_id: "2" }), 400, "invalid_request");
    expect(await w.alice.patch(me, { current_password: PW, phira_id: 5 }), 400, "invalid_request");
    const renamed = await w.alice.patch(me, { current_password: PW, username: "Alicia" });
    expect(renamed, 200);
    equal((renamed.body as { username: string }).username, "Alicia");
    equal(
      (renamed.body as { group_id: number }).group_id,
      3,
      "an absent group_id leaves the group (the original reset it)",
    );
    expect(await w.alice.patch(`/api/auth/users/${w.bobId}`, { current_password: PW, username: "x1" }), 403);
  } finally {
    await w.t.close();
  }
});

Deno.test("a password change ends the user's other sessions; a manager's change ends them all", async () => {
  const w = await world();
  try {
    const other = await w.t.login("alice", PW);
    const me = `/api/auth/users/${w.aliceId}`;
    expect(await w.alice.patch(me, { current_password: PW, password: "new-password-1" }), 200);
    expect(await w.alice.get("/api/auth/me"), 200);
    expect(await other.get("/api/auth/me"), 401);
    expect(await w.t.client().post("/api/auth/login", { username: "alice", password: PW }), 401);
    const fresh = await w.t.login("alice", "new-password-1");
    expect(await w.admin.patch(me, { current_password: PW, password: "admin-set-pw1" }), 200);
    expect(await fresh.get("/api/auth/me"), 401);
    expect(await w.alice.get("/api/auth/me"), 401);
    await w.t.login("alice", "admin-set-pw1");
  } finally {
    await w.t.close();
  }
});

Deno.test("managers act only on users they outrank: admins manage plain users, only roots manage admins", async () => {
  const w = await world();
  try {
    const body = { current_password: PW, username: "renamed" };
    expect(await w.admin.patch("/api/auth/users/1", body), 403, "permission_denied");
    expect(await w.admin.patch(`/api/auth/users/${w.admin2Id}`, body), 403, "permission_denied");
    expect(await w.admin.delete("/api/auth/users/1"), 403, "permission_denied");
    expect(await w.admin.delete(`/api/auth/users/${w.admin2Id}`), 403, "permission_denied");
    expect(await w.admin.patch(`/api/auth/users/${w.bobId}`, body), 200);
    // Admins hold no GROUP_MANAGEMENT: no group changes, no game links without the bit… they do hold USER_MANAGEMENT.
    expect(await w.admin.patch(`/api/auth/users/${w.bobId}`, { current_password: PW, group_id: 2 }), 403);
    const linked = await w.admin.patch(`/api/auth/users/${w.bobId}`, { current_password: PW, game_id: 300 });
    expect(linked, 200);
    deepEqual(
      [(linked.body as { game_id: number }).game_id, (linked.body as { game_username: string }).game_username],
      [300, "Carol"],
    );
    expect(
      await w.admin.patch(`/api/auth/users/${w.bobId}`, { current_password: PW, game_id: 100 }),
      409,
      "game_account_bound",
    );
    w.t.dev.state.hideUser(4242);
    expect(
      await w.admin.patch(`/api/auth/users/${w.bobId}`, { current_password: PW, game_id: 4242 }),
      422,
      "game_account_not_found",
    );
    const unlinked = await w.admin.patch(`/api/auth/users/${w.bobId}`, { current_password: PW, game_id: null });
    equal((unlinked.body as { game_id: null }).game_id, null);
    expect(
      await w.root.patch(`/api/auth/users/${w.admin2Id}`, { current_password: ROOT_PASSWORD, username: "boss" }),
      200,
    );
    expect(await w.root.patch(`/api/auth/users/${w.bobId}`, { current_password: ROOT_PASSWORD, group_id: 2 }), 200);
    expect(
      await w.root.patch(`/api/auth/users/${w.bobId}`, { current_password: ROOT_PASSWORD, group_id: 99 }),
      422,
      "unknown_group",
    );
    expect(await w.alice.delete(`/api/auth/users/${w.bobId}`), 403, "permission_denied");
    expect(await w.admin.delete(`/api/auth/users/${w.aliceId}`), 200);
    expect(await w.alice.get("/api/auth/me"), 401, "unauthenticated"); // a deleted user's sessions end
    expect(await w.admin.delete(`/api/auth/users/${w.aliceId}`), 404, "user_not_found");
  } finally {
    await w.t.close();
  }
});

Deno.test("nobody grants bits they do not hold", async () => {
  const w = await world();
  try {
    const groups = await w.root.post("/api/auth/groups", { name: "groupers", permissions: PERM.GROUP_MANAGEMENT });
    expect(groups, 201);
    const gid = (groups.body as { id: number }).id;
    const gmId = await addUser(w.t, "grouper", PW, gid);
    const gm = await w.t.login("grouper", PW);
    expect(await gm.post("/api/auth/groups", { name: "gods", permissions: PERM.ALL }), 403, "permission_denied");
    expect(await gm.post("/api/auth/groups", { name: "umgr", permissions: PERM.USER_MANAGEMENT }), 403);
    expect(await gm.post("/api/auth/groups", { name: "peers", permissions: PERM.GROUP_MANAGEMENT }), 201);
    // Own group to admin (IMPORTANT | USER_MANAGEMENT): not within its bits.
    expect(await gm.patch(`/api/auth/users/${gmId}`, { current_password: PW, group_id: 2 }), 403, "permission_denied");
    expect(await gm.patch(`/api/auth/groups/${gid}`, { current_password: PW, permissions: PERM.ALL }), 403);
    expect(await gm.patch("/api/auth/groups/2", { current_password: PW, name: "x" }), 403, "permission_denied");
    expect(await gm.delete("/api/auth/groups/2"), 403, "permission_denied");
    // Registration into a group: GROUP_MANAGEMENT and a group within your bits.
    const reg = await gm.post("/api/auth/users", {
      username: "newbie",
      password: PW,
      game_id_or_username: "700",
      group_id: 2,
    });
    expect(reg, 403, "permission_denied");
    expect(
      await w.t.client().post("/api/auth/users", {
        username: "x2",
        password: PW,
        game_id_or_username: "700",
        group_id: 2,
      }),
      401,
      "unauthenticated",
    );
    expect(
      await w.admin.post("/api/auth/users", { username: "x3", password: PW, game_id_or_username: "700", group_id: 1 }),
      403,
    );
  } finally {
    await w.t.close();
  }
});

Deno.test("the last root cannot be demoted, deleted or stripped", async () => {
  const w = await world();
  try {
    const pw = ROOT_PASSWORD;
    expect(await w.root.patch("/api/auth/users/1", { current_password: pw, group_id: 3 }), 409, "last_root");
    expect(await w.root.delete("/api/auth/users/1"), 409, "last_root");
    expect(await w.root.patch("/api/auth/groups/1", { current_password: pw, permissions: 7 }), 409, "last_root");
    expect(await w.root.delete("/api/auth/groups/1"), 409, "group_not_empty");
    expect(await w.root.get("/api/auth/me"), 200);
    equal(((await w.root.get("/api/auth/groups/1")).body as { permissions: number }).permissions, PERM.ALL);
    // With a second root, the first may step down.
    expect(await w.root.patch(`/api/auth/users/${w.aliceId}`, { current_password: pw, group_id: 1 }), 200);
    expect(await w.root.patch("/api/auth/users/1", { current_password: pw, group_id: 3 }), 200);
    expect(await w.alice.patch("/api/auth/users/1", { current_password: PW, group_id: 1 }), 200);
  } finally {
    await w.t.close();
  }
});

Deno.test("groups: reading needs a session, creating works, 0 is a permission value, unknown ids are 404 (the original's flaws refused)", async () => {
  const w = await world();
  try {
    expect(await w.t.client().get("/api/auth/groups"), 401, "unauthenticated");
    expect(await w.alice.get("/api/auth/groups"), 403, "permission_denied");
    deepEqual((await w.alice.get("/api/auth/groups/3")).body, { id: 3, name: "user", permissions: 0 }, "own group");
    expect(await w.alice.get("/api/auth/groups/1"), 403);
    deepEqual((await w.admin.get("/api/auth/groups")).body, [
      { id: 1, name: "root", permissions: PERM.ALL },
      { id: 2, name: "admin", permissions: 3 },
      { id: 3, name: "user", permissions: 0 },
    ]);
    expect(await w.admin.post("/api/auth/groups", { name: "x", permissions: 0 }), 403, "permission_denied");
    const created = await w.root.post("/api/auth/groups", { name: "Moderators", permissions: 3 });
    deepEqual(created.body, { id: 4, name: "Moderators", permissions: 3 });
    expect(await w.root.post("/api/auth/groups", { name: "moderators", permissions: 0 }), 409, "group_name_taken");
    expect(await w.root.post("/api/auth/groups", { name: "big", permissions: 2 ** 32 }), 422, "invalid_permissions");
    expect(await w.root.post("/api/auth/groups", { name: "neg", permissions: -1 }), 422, "invalid_permissions");
    expect(await w.root.post("/api/auth/groups", { name: "no spaces", permissions: 0 }), 422, "invalid_group_name");
    expect(await w.root.post("/api/auth/groups", { name: "np" }), 400, "invalid_request");
    expect(await w.root.patch("/api/auth/groups/4", { permissions: 0 }), 400, "invalid_request");
    const zero = await w.root.patch("/api/auth/groups/4", { current_password: ROOT_PASSWORD, permissions: 0 });
    deepEqual(zero.body, { id: 4, name: "Moderators", permissions: 0 });
    expect(
      await w.root.patch("/api/auth/groups/44", { current_password: ROOT_PASSWORD, name: "y" }),
      404,
      "group_not_found",
    );
    expect(await w.root.get("/api/auth/groups/44"), 404, "group_not_found");
    expect(await w.root.delete("/api/auth/groups/3"), 409, "default_group");
    expect(await w.root.delete("/api/auth/groups/2"), 409, "group_not_empty");
    deepEqual((await w.root.delete("/api/auth/groups/4")).body, { message: "success" });
    expect(await w.root.delete("/api/auth/groups/4"), 404, "group_not_found");
  } finally {
    await w.t.close();
  }
});

Deno.test("visited: the count is public, the list needs USER_MANAGEMENT; filled from the game server's logins and rooms", async () => {
  const w = await world();
  try {
    const source = w.t.source as ManualRoomSource;
    source.emit({ type: "visited", user: 100 });
    source.emit({ type: "visited", user: -9 });
    source.emit({
      type: "created",
      room: "r1",
      creator: 200,
      data: { host: 200, users: [200], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
    });
    source.emit({ type: "joined", room: "r1", user: 300 });
    w.t.clock.advance(1000);
    await waitFor(async () => (await w.t.client().get("/api/auth/visited/count")).body === 3);
    expect(await w.alice.get("/api/auth/visited"), 403, "permission_denied");
    deepEqual((await w.admin.get("/api/auth/visited")).body, [{ game_id: 100 }, { game_id: 200 }, { game_id: 300 }]);
  } finally {
    await w.t.close();
  }
});

/** Lets pending I/O settle until `cond` holds. */
async function waitFor(cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await cond()) return;
    await settle(1);
  }
  throw new Error("condition not reached");
}
