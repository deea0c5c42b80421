/**
 * The five built-in Lua plugins (spec 3 §2.3; `legacy/plugins/`) load at
 * start-up with their routes (the originals registered theirs only after a
 * reload) and do for real what the originals simulated: real figures,
 * rooms and users, real kicks and bans behind the admin token, in-game
 * `!commands` for administrators, virtual rooms that exist, real replay
 * listings.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { waitUntil } from "./support/describe.ts";
import { jsonOf, startLegacy } from "./support/legacy.ts";

const TOKEN = "built-in-plugins-admin-token";
const auth = { "x-admin-token": TOKEN, "content-type": "application/json" };

Deno.test("built-in plugins: all five enabled at start-up with their routes", async () => {
  const t = await startLegacy({ builtins: true, config: { admin_token: TOKEN } as never });
  try {
    deepEqual(t.mode.host.list().map((p) => [p.id, p.state, p.builtin]), [
      ["admin-commands", "enabled", true],
      ["advanced-room-management", "enabled", true],
      ["http-admin-api", "enabled", true],
      ["replay-recorder", "enabled", true],
      ["virtual-room", "enabled", true],
    ]);
    const health = await jsonOf(await t.fetch("/api/health"));
    deepEqual([health.status, health.body.status, typeof health.body.timestamp], [200, "healthy", "number"]);
    const alice = await t.h.login(100);
    await alice.createRoom("abc");
    await t.h.advance(3000);
    const stats = (await jsonOf(await t.fetch("/api/stats"))).body;
    deepEqual([stats.users, stats.rooms, stats.sessions, stats.uptime, stats.plugins], [1, 1, 1, 3, 5]);
    const rooms = (await jsonOf(await t.fetch("/api/rooms"))).body;
    equal(rooms.count, 1);
    equal((rooms.rooms as { id: string }[])[0]!.id, "abc");
    deepEqual((await jsonOf(await t.fetch("/api/users"))).body.count, 1);
    const page = await t.fetch("/");
    match(await page.text(), /<li><code>GET \/api\/stats<\/code>/);
    equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  } finally {
    await t.close();
  }
});

Deno.test("built-in plugins: admin routes need the token and act for real", async () => {
  const t = await startLegacy({ builtins: true, config: { admin_token: TOKEN } as never });
  try {
    const bob = await t.h.login(200);
    deepEqual(
      await jsonOf(await t.fetch("/api/admin/kick", { method: "POST", body: JSON.stringify({ userId: 200 }) })),
      {
        status: 401,
        body: { ok: false, error: "unauthorized" },
      },
    );
    deepEqual(
      await jsonOf(
        await t.fetch("/api/admin/broadcast", {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ message: "hi" }),
        }),
      ),
      {
        status: 200,
        body: { ok: true, sent: true },
      },
    );
    await waitUntil(() => bob.received.some((c) => c.type === "Message" && c.message.type === "Chat"), "broadcast");
    deepEqual(
      await jsonOf(
        await t.fetch("/api/admin/kick", { method: "POST", headers: auth, body: JSON.stringify({ userId: 200 }) }),
      ),
      {
        status: 200,
        body: { ok: true },
      },
    );
    await waitUntil(() => !t.h.server.core.users.has(200), "kicked");
    await t.fetch("/api/admin/ban", {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ userId: 300, reason: "x" }),
    });
    deepEqual((await jsonOf(await t.fetch("/api/admin/banned", { headers: auth }))).body, { ok: true, users: [300] });
    deepEqual(
      (await jsonOf(
        await t.fetch("/api/admin/unban", { method: "POST", headers: auth, body: JSON.stringify({ userId: 300 }) }),
      )).status,
      200,
    );
    deepEqual((await jsonOf(await t.fetch("/api/admin/banned", { headers: auth }))).body, { ok: true, users: [] });

    // Virtual rooms exist: created empty and hosted by the system, listed, left out of /room, disbanded.
    const created = await jsonOf(
      await t.fetch("/api/rooms/virtual/create", {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: "practice", settings: { max_players: 4, locked: true } }),
      }),
    );
    equal(created.status, 200);
    equal(created.body.roomId, "_practice");
    const room = t.h.server.core.rooms.get("_practice")!;
    deepEqual([room.maxPlayers, room.locked, room.hostId], [4, true, -1]);
    deepEqual(
      ((await jsonOf(await t.fetch("/api/rooms/virtual/list"))).body.rooms as { id: string }[]).map((r) => r.id),
      [
        "_practice",
      ],
    );
    deepEqual((await (await t.fetch("/room")).json()).rooms, []);
    equal(
      (await t.fetch("/api/rooms/settings", {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ roomId: "_practice", cycle: true }),
      })).status,
      200,
    );
    equal(t.h.server.core.rooms.get("_practice")!.cycle, true);
    deepEqual(
      (await jsonOf(
        await t.fetch("/api/rooms/virtual/delete", {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ roomId: "_practice" }),
        }),
      )).body,
      {
        ok: true,
      },
    );
    equal(t.h.server.core.rooms.has("_practice"), false);

    // Replays: the switch and a user's real (here: empty) listing.
    deepEqual((await jsonOf(await t.fetch("/api/replays/status"))).body, { ok: true, enabled: false });
    await t.fetch("/api/replays/config", { method: "POST", headers: auth, body: JSON.stringify({ enabled: true }) });
    equal(t.mode.ctx.switches.replay, true);
    deepEqual((await jsonOf(await t.fetch("/api/replays/list?user=200", { headers: auth }))).body, {
      ok: true,
      userId: 200,
      charts: [],
    });
  } finally {
    await t.close();
  }
});

Deno.test("built-in plugins: !commands in chat for administrators, ordinary chat for others", async () => {
  const t = await startLegacy({ builtins: true, config: { admin_game_ids: [100] } });
  try {
    const admin = await t.h.login(100);
    const bob = await t.h.login(200);
    await admin.createRoom("abc");
    await bob.joinRoom("abc");
    const result = await admin.chat("!ban 555 cheater").then(() => "sent", (e: Error) => e.message);
    match(result, /banned 555/);
    equal(t.h.server.core.bans.userBan(555)?.reason, "cheater");
    await bob.chat("!ban 100");
    equal(t.h.server.core.bans.userBan(100), undefined, "a player's !command is just chat");
    await waitUntil(
      () =>
        admin.received.some((c) =>
          c.type === "Message" && c.message.type === "Chat" && c.message.content === "!ban 100"
        ),
      "bob's chat",
    );
    ok(
      !bob.received.some((c) =>
        c.type === "Message" && c.message.type === "Chat" && c.message.content.startsWith("!ban 555")
      ),
    );
    // virtual-room greets whoever joins a virtual room.
    await t.ops.call("room.create", { room_id: "_v", system_host: true }, { kind: "console" });
    await bob.leaveRoom();
    await bob.joinRoom("_v");
    await waitUntil(
      () =>
        bob.received.some((c) =>
          c.type === "Message" && c.message.type === "Chat" && c.message.content === "Welcome to _v!"
        ),
      "the greeting",
    );
  } finally {
    await t.close();
  }
});
