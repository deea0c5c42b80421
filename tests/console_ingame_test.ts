/**
 * The in-game console over real TCP (spec 3 §4.2; issue 7): an administrator
 * creates a room named `_<command>` and the registry's output comes back as
 * `[CLI]` chat lines; `cli_enabled: false` and non-administrators get
 * ordinary rooms; `admin-id` changes take effect at once.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason, type PhiraClient } from "../src/client/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { startConsoleHarness } from "./support/console.ts";

function cliLines(c: PhiraClient): string[] {
  return c.received.flatMap((m) =>
    m.type === "Message" && m.message.type === "Chat" && m.message.content.startsWith("[CLI] ")
      ? [m.message.content]
      : []
  );
}

Deno.test("in-game console runs registry commands for administrators over TCP", async () => {
  const c = await startConsoleHarness({ config: { admin_game_ids: [100] } });
  const admin = await c.h.login(100);
  const player = await c.h.login(200);
  await player.createRoom("my_room");
  await assertRejectsWithReason(admin.createRoom("_room_info_my__room"), "admin CLI command executed");
  await waitUntil(() => cliLines(admin).length >= 3, "room info output");
  const info = cliLines(admin);
  equal(info[0], "[CLI] > room info my_room");
  equal(info[1], `[CLI] room my_room  uuid ${c.h.server.core.rooms.get("my_room")!.uuid}`);
  ok(info.includes("[CLI]   players 1/100: Bob(200)"), info.join("\n"));

  // Long commands continue with `--`; the output goes to the administrator only.
  await assertRejectsWithReason(admin.createRoom("_broadcast_user--"), "admin CLI command held");
  await assertRejectsWithReason(admin.createRoom("_--_200_hi_there"), "admin CLI command executed");
  await waitUntil(() => cliLines(admin).includes("[CLI] sent to user 200"), "broadcast output");
  await waitUntil(() => player.received.some((m) => m.type === "Message" && m.message.type === "Chat"), "broadcast");
  deepEqual(cliLines(player), [], "nobody else sees console output");

  // Errors come back as [CLI] lines too.
  await assertRejectsWithReason(admin.createRoom("_kick_nobody"), "admin CLI command executed");
  await waitUntil(() => cliLines(admin).some((l) => l.startsWith("[CLI] error: invalid user_id")), "error line");
  await assertRejectsWithReason(admin.createRoom("_frobnicate"), "admin CLI command executed");
  await waitUntil(() => cliLines(admin).some((l) => l.includes('unknown command "frobnicate"')), "unknown");

  // admin-id from the in-game console grants rights to another user at once.
  await assertRejectsWithReason(admin.createRoom("_admin-id_add_200"), "admin CLI command executed");
  await assertRejectsWithReason(
    player.leaveRoom().then(() => player.createRoom("_rooms")),
    "admin CLI command executed",
  );
  await waitUntil(() => cliLines(player).includes("[CLI] no rooms"), "rooms output for the new administrator");
  equal(c.h.server.core.rooms.has("_rooms"), false, "no room was created");
  deepEqual(
    c.registry.inputs.recent(10).filter((i) => i.source === "in-game").map((i) => `${i.actor}:${i.input}`),
    [
      "100:room info my_room",
      "100:broadcast user 200 hi there",
      "100:kick nobody",
      "100:frobnicate",
      "100:admin-id add 200",
      "200:rooms",
    ],
  );
  await c.close();
});

Deno.test("in-game console: non-administrators and cli_enabled false create ordinary rooms", async () => {
  const c = await startConsoleHarness({ config: { admin_game_ids: [100], cli_enabled: false } });
  const admin = await c.h.login(100);
  await admin.createRoom("_rooms");
  ok(c.h.server.core.rooms.has("_rooms"), "cli_enabled false switches the in-game console off");
  const player = await c.h.login(200);
  await player.createRoom("_users");
  ok(c.h.server.core.rooms.has("_users"));
  deepEqual(cliLines(admin), []);
  await c.close();
});

Deno.test("in-game console exit requests a shutdown naming the administrator", async () => {
  const c = await startConsoleHarness({ config: { admin_game_ids: [100] } });
  const admin = await c.h.login(100);
  await assertRejectsWithReason(admin.createRoom("_exit"), "admin CLI command executed");
  deepEqual(c.shutdowns, ["in-game console (100): exit"]);
  await c.close();
});

Deno.test("in-game console: a non-administrator's `_users` room is ordinary while cli_enabled is true", async () => {
  const c = await startConsoleHarness({ config: { admin_game_ids: [100], cli_enabled: true } });
  const player = await c.h.login(200);
  await player.createRoom("_users");
  ok(c.h.server.core.rooms.has("_users"), "an ordinary room was created");
  deepEqual(c.h.server.core.rooms.get("_users")!.players.map((p) => p.id), [200]);
  deepEqual(cliLines(player), []);
  deepEqual(c.registry.inputs.recent(10).filter((i) => i.source === "in-game"), []);
  await c.close();
});

Deno.test("in-game console: a continuation without `--` and an empty command are rejected", async () => {
  const c = await startConsoleHarness({ config: { admin_game_ids: [100] } });
  const admin = await c.h.login(100);
  await assertRejectsWithReason(admin.createRoom("_broadcast_user--"), "admin CLI command held");
  await waitUntil(() => cliLines(admin).some((l) => l.startsWith("[CLI] held;")), "held notice");
  // The next part must start with `--`; otherwise the held part is dropped and nothing runs.
  await assertRejectsWithReason(admin.createRoom("_200_hi"), "admin CLI command rejected");
  await waitUntil(
    () => cliLines(admin).includes("[CLI] continuation expected: the next part must start with --"),
    "continuation error",
  );
  // The held part is gone: a fresh command runs on its own.
  await assertRejectsWithReason(admin.createRoom("_rooms"), "admin CLI command executed");
  await waitUntil(() => cliLines(admin).includes("[CLI] > rooms"), "fresh command");
  // `_` alone decodes to an empty command.
  await assertRejectsWithReason(admin.createRoom("_"), "admin CLI command rejected");
  await waitUntil(() => cliLines(admin).includes("[CLI] empty command"), "empty command notice");
  equal(c.h.server.core.rooms.has("_"), false);
  equal(c.h.server.core.rooms.has("_200_hi"), false);
  deepEqual(
    c.registry.inputs.recent(10).filter((i) => i.source === "in-game").map((i) => i.input),
    ["rooms"],
  );
  await c.close();
});
