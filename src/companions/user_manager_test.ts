import { deepEqual, equal, ok } from "node:assert/strict";
import { SqliteDb } from "../db/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { argon2Hasher, TEST_ARGON2 } from "./passwords.ts";
import { userManagerApp } from "./user_manager.ts";
import { migrateUsers, UserStore } from "./user_store.ts";

const SUPER = "super secret phrase";
const ADMIN = "admin secret phrase";

async function rig(known: Record<number, string> = { 100: "Alice", 200: "Bob", 300: "Carol" }) {
  const db = SqliteDb.open(":memory:");
  await migrateUsers(db);
  const hasher = argon2Hasher(TEST_ARGON2);
  const store = new UserStore(db);
  const clock = new ManualClock(1_750_000_000_000);
  const app = userManagerApp({
    store,
    hasher,
    roles: { super: await hasher.hash(SUPER), admin: await hasher.hash(ADMIN) },
    players: { lookup: (id) => Promise.resolve({ known: id in known, name: known[id] ?? null }) },
    clock,
    log: memoryLogHub().logger(),
    lockout: { max_failures: 3, window_secs: 600, lockout_secs: 900 },
  });
  const post = async (path: string, body: unknown, ip = "192.0.2.1") => {
    const res = await app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }, { ip });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  return { db, store, clock, app, post, hasher };
}

Deno.test("user_manager register binds a known game account; refusals name the reason", async () => {
  const { db, post } = await rig();
  try {
    const ok1 = await post("/register", { name: "alice", password: "hunter22", phira_id: "100" });
    equal(ok1.status, 200);
    equal(ok1.body.message, "Registration successful");
    const user = ok1.body.user as Record<string, unknown>;
    deepEqual({ ...user, created_at: undefined }, {
      id: 1,
      name: "alice",
      game_id: 100,
      game_name: "Alice",
      game_rks: 0,
      image_url: "",
      admin: "no",
      dev: "no",
      created_at: undefined,
    });
    equal(user.created_at, "2025-06-15T15:06:40.000Z");
    const cases: [unknown, number, string][] = [
      [{ name: "x", password: "hunter22" }, 400, "Missing parameters"],
      [{ name: "bob", password: "short", game_id: 200 }, 400, "Password must be at least 6 characters"],
      [{ name: " bob", password: "hunter22", game_id: 200 }, 400, "Username must not start or end with spaces"],
      [{ name: "bob", password: "hunter22", game_id: "abc" }, 400, "Phira id must be a positive integer"],
      [
        { name: "bob", password: "hunter22", game_id: 999 },
        400,
        "Phira account not found (it has to play on this server first)",
      ],
      [{ name: "bob", password: "hunter22", game_id: 100 }, 400, "Phira account already bound"],
      [{ name: "ALICE", password: "hunter22", game_id: 200 }, 400, "Username already exists"],
    ];
    for (const [body, status, message] of cases) {
      const r = await post("/register", body);
      deepEqual([r.status, r.body.status, r.body.message], [status, "error", message], JSON.stringify(body));
    }
    const [row] = await db.query("SELECT password FROM companion_users WHERE name = 'alice'");
    ok(String(row?.password).startsWith("$argon2id$v=19$"));
  } finally {
    await db.close();
  }
});

Deno.test("user_manager login returns the user without password or hash; wrong passwords lock the address", async () => {
  const { db, post, clock } = await rig();
  try {
    await post("/register", { name: "alice", password: "hunter22", game_id: 100 });
    const good = await post("/login", { name: "Alice", password: "hunter22" });
    equal(good.status, 200);
    const text = JSON.stringify(good.body);
    ok(!text.includes("hunter22") && !text.includes("argon2"), text);
    deepEqual(Object.keys(good.body.user as object).sort(), [
      "admin",
      "created_at",
      "dev",
      "game_id",
      "game_name",
      "game_rks",
      "id",
      "image_url",
      "name",
    ]);
    deepEqual(await post("/login", { name: "nobody", password: "x" }, "192.0.2.5"), {
      status: 404,
      body: { status: "error", message: "Username not found" },
    });
    // Unknown names count as failures too: names cannot be probed without limit.
    equal((await post("/login", { name: "nobody2", password: "x" }, "192.0.2.5")).status, 404);
    equal((await post("/login", { name: "nobody3", password: "x" }, "192.0.2.5")).status, 404);
    equal((await post("/login", { name: "alice", password: "hunter22" }, "192.0.2.5")).status, 429);
    equal((await post("/login", { name: "alice", password: "wrong1" })).body.message, "Incorrect password");
    equal((await post("/login", { name: "alice", password: "wrong2" })).status, 401);
    equal((await post("/login", { name: "alice", password: "wrong3" })).status, 401);
    const locked = await post("/login", { name: "alice", password: "hunter22" });
    deepEqual(locked, {
      status: 429,
      body: { status: "error", message: "Too many failed attempts; try again in 15 min" },
    });
    equal((await post("/login", { name: "alice", password: "hunter22" }, "192.0.2.9")).status, 200, "other address");
    clock.advance(900_000);
    equal((await post("/login", { name: "alice", password: "hunter22" })).status, 200);
  } finally {
    await db.close();
  }
});

Deno.test("user_manager update_account changes name or password with the current password", async () => {
  const { db, post } = await rig();
  try {
    await post("/register", { name: "alice", password: "hunter22", game_id: 100 });
    await post("/register", { name: "bob", password: "hunter22", game_id: 200 });
    const wrong = await post("/update_account", { user_id: 1, current_password: "nope", new_password: "newpass1" });
    deepEqual(wrong, { status: 401, body: { status: "error", message: "Incorrect password" } });
    const short = await post("/update_account", { user_id: 1, current_password: "hunter22", new_password: "12345" });
    equal(short.body.message, "Password must be at least 6 characters");
    const taken = await post("/update_account", { user_id: 1, current_password: "hunter22", new_username: "BOB" });
    equal(taken.body.message, "Username already exists");
    const renamed = await post("/update_account", { user_id: 1, current_password: "hunter22", new_username: "alicia" });
    equal(renamed.status, 200);
    equal((renamed.body.user as { name: string }).name, "alicia");
    const pw = await post("/update_account", { user_id: "1", current_password: "hunter22", new_password: "newpass1" });
    equal(pw.body.message, "Account updated");
    equal((await post("/login", { name: "alicia", password: "hunter22" })).status, 401);
    equal((await post("/login", { name: "alicia", password: "newpass1" })).status, 200);
    equal(
      (await post("/update_account", { user_id: 99, current_password: "x", new_password: "newpass1" })).status,
      404,
    );
    equal((await post("/update_account", { user_id: 1, current_password: "newpass1" })).body.message, "No changes");
  } finally {
    await db.close();
  }
});

Deno.test("user_manager roles: admin reads and edits plain fields, only super changes password, admin, dev", async (t) => {
  const { db, post } = await rig();
  try {
    await post("/register", { name: "alice", password: "hunter22", game_id: 100 });
    await post("/register", { name: "bob", password: "hunter22", game_id: 200 });
    await t.step("unauthorized", async () => {
      deepEqual(await post("/admin/users", { password: "guess" }), {
        status: 403,
        body: { status: "error", message: "Unauthorized" },
      });
      equal((await post("/info", { id: 1 }, "192.0.2.2")).status, 403);
    });
    await t.step("info and list never carry hashes", async () => {
      const info = await post("/info", { id: 1, password: SUPER });
      equal(info.body.role, "super");
      ok(!JSON.stringify(info.body).includes("argon2"));
      const list = await post("/admin/users", { password: ADMIN });
      equal(list.body.role, "admin");
      equal((list.body.users as unknown[]).length, 2);
      ok(!JSON.stringify(list.body).includes("argon2"));
      equal((await post("/info", { id: 9, password: ADMIN })).body.message, "User not found");
    });
    await t.step("forbidden and unknown fields", async () => {
      for (const field of ["password", "admin", "dev"]) {
        const r = await post("/admin/update", {
          password: ADMIN,
          user_id: 1,
          changes: { [field]: field === "password" ? "newpass1" : "yes" },
        });
        deepEqual(r, { status: 403, body: { status: "error", message: `Insufficient privileges to modify ${field}` } });
      }
      equal(
        (await post("/admin/update", { password: SUPER, user_id: 1, changes: { role: "x" } })).body.message,
        "Unknown field role",
      );
      equal(
        (await post("/admin/update", { password: SUPER, user_id: 1, changes: { admin: "maybe" } })).body.message,
        'admin must be "yes" or "no"',
      );
      equal((await post("/admin/update", { password: SUPER, user_id: 1, changes: {} })).body.message, "No changes");
    });
    await t.step("admin edits names and game data; a new game id resets rks and avatar", async () => {
      const r = await post("/info_changer", {
        password: ADMIN,
        id: 2,
        changes: { name: "robert", phira_rks: 12.5, image_url: "https://x.test/a.png" },
      });
      equal(r.body.message, "User updated");
      const moved = await post("/admin/update", { password: ADMIN, user_id: 2, changes: { game_id: 300 } });
      const user = moved.body.user as Record<string, unknown>;
      deepEqual([user.name, user.game_id, user.game_name, user.game_rks, user.image_url], [
        "robert",
        300,
        "Carol",
        0,
        "",
      ]);
      equal(
        (await post("/admin/update", { password: ADMIN, user_id: 2, changes: { game_id: 100 } })).body.message,
        "Phira account already bound",
      );
    });
    await t.step("super sets a password and flags", async () => {
      const r = await post("/admin/update", {
        password: SUPER,
        user_id: 1,
        changes: { password: "fresh-pass", admin: "yes", dev: true },
      });
      equal(r.status, 200);
      const user = r.body.user as Record<string, unknown>;
      deepEqual([user.admin, user.dev], ["yes", "yes"]);
      equal((await post("/login", { name: "alice", password: "fresh-pass" })).status, 200);
    });
  } finally {
    await db.close();
  }
});

Deno.test("user_manager batch update reports per user; fields needing one user are refused", async () => {
  const { db, post } = await rig();
  try {
    await post("/register", { name: "alice", password: "hunter22", game_id: 100 });
    await post("/register", { name: "bob", password: "hunter22", game_id: 200 });
    const r = await post("/admin/batch-update", {
      password: SUPER,
      user_ids: [1, "2", 7, "x"],
      changes: { dev: "yes" },
    });
    equal(r.status, 200);
    equal(r.body.message, "2 of 4 users updated");
    deepEqual(r.body.results, [
      { user_id: 1, status: "success", message: "User updated" },
      { user_id: 2, status: "success", message: "User updated" },
      { user_id: 7, status: "error", message: "User not found" },
      { user_id: "x", status: "error", message: "Invalid user id" },
    ]);
    const list = await post("/admin/users", { password: ADMIN });
    deepEqual((list.body.users as { dev: string }[]).map((u) => u.dev), ["yes", "yes"]);
    equal(
      (await post("/admin/batch-update", { password: ADMIN, user_ids: [1], changes: { admin: "yes" } })).status,
      403,
    );
    equal(
      (await post("/admin/batch-update", { password: SUPER, user_ids: [1], changes: { name: "z" } })).body.message,
      "Field name cannot be changed in a batch",
    );
    equal((await post("/admin/batch-update", { password: SUPER, user_ids: [], changes: { dev: "no" } })).status, 400);
  } finally {
    await db.close();
  }
});

Deno.test("user_manager role failures lock the address; bad bodies are 400 or 413", async () => {
  const { db, post, app } = await rig();
  try {
    for (let i = 0; i < 3; i++) equal((await post("/admin/users", { password: `guess${i}` })).status, 403);
    const locked = await post("/admin/users", { password: SUPER });
    equal(locked.status, 429);
    const bad = await app.request("/login", { method: "POST", body: "{not json" });
    deepEqual([bad.status, await bad.json()], [400, { status: "error", message: "Invalid JSON body" }]);
    const big = await app.request("/login", { method: "POST", body: "x".repeat(70_000) });
    equal(big.status, 413);
    await big.body?.cancel();
    const total = await app.request("/users/total");
    deepEqual(await total.json(), { status: "success", total_users: 0 });
  } finally {
    await db.close();
  }
});
