/**
 * The legacy console (spec 3 §4.3) with the lua-cpp server's texts (peers
 * note §2.9) where they make sense, acting for real where the original
 * only printed; and the first-start import of ban files.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { MemorySettings } from "../legacy/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { startLegacy } from "./support/legacy.ts";

Deno.test("legacy console: status, rooms, users and their errors in the original's words", async () => {
  const t = await startLegacy();
  try {
    match((await t.console("help")).join("\n"), /General Commands:[\s\S]*Contest Management:[\s\S]*Server Management:/);
    deepEqual(await t.console("?"), await t.console("HELP"), "aliases, any case");
    deepEqual(await t.console("status"), [
      "=== Server Status ===",
      "Connected Users: 0",
      "Total Sessions: 0",
      "Active Rooms: 0",
      "Replay Enabled: No",
      "Room Creation: Enabled",
      "===================",
    ]);
    deepEqual(await t.console("list"), ["No active rooms"]);
    deepEqual(await t.console("users"), ["No users online"]);
    deepEqual(await t.console("frobnicate now"), ["Unknown command: frobnicate", "Type 'help' for available commands"]);
    const alice = await t.h.login(100);
    await t.h.login(200);
    await alice.createRoom("abc");
    await alice.selectChart(7);
    deepEqual(await t.console("rooms"), [
      "Room ID: abc",
      "  Host: Alice (100)",
      "  Players: 1/100",
      "  Monitors: 0",
      "  Status: Selecting Chart",
      "  Chart: Lucky Seven (ID: 7)",
      "  Locked: No",
      "  Cycle Mode: No",
      "  Live: No",
    ]);
    deepEqual((await t.console("users")).slice(0, 6), [
      "User ID: 100",
      "  Name: Alice",
      "  Status: In Room",
      "  Monitor: No",
      "  Room: abc",
      "  Language: en-US",
    ]);
    deepEqual(await t.console("user 999"), ["Error: User ID 999 not found"]);
    match((await t.console("user 100")).join("\n"), /Is Host: Yes[\s\S]*Alive: Yes/);
    deepEqual(await t.console("maxusers abc"), ["Usage: maxusers <roomId> <count>"]);
    deepEqual(await t.console("maxusers abc 65"), ["Error: Max users must be between 1 and 64"]);
    deepEqual(await t.console("maxusers r1 8"), ["Error: Room 'r1' not found"]);
    deepEqual(await t.console("maxusers abc 8"), ["Room 'abc' max users set to 8"]);
    equal(t.h.server.core.rooms.get("abc")!.maxPlayers, 8);
    deepEqual(await t.console("broadcast"), ["Error: Broadcast message cannot be empty"]);
    deepEqual(await t.console(`say ${"x".repeat(201)}`), ["Error: Message too long (max 200 characters)"]);
    deepEqual(await t.console("broadcast hello there"), ['Broadcast sent to 1 rooms: "hello there"']);
    deepEqual(await t.console("roomsay nope hi"), ["Error: Room 'nope' not found"]);
    deepEqual(await t.console("roomsay abc hi all"), [`Message sent to room 'abc': "hi all"`]);
    deepEqual(await t.console("disband nope"), ["Error: Room 'nope' not found"]);
    deepEqual(await t.console("disband abc"), ["Room 'abc' disbanded (notified 1 users)"]);
    equal(t.h.server.core.rooms.has("abc"), false);
  } finally {
    await t.close();
  }
});

Deno.test("legacy console: kick, bans, room bans, switches, addresses, contests, stop", async () => {
  const t = await startLegacy();
  try {
    await t.h.login(100);
    deepEqual(await t.console("kick 999"), ["Error: User ID 999 not found or not connected"]);
    deepEqual(await t.console("kick 100"), ["Kicked user ID: 100"]);
    await waitUntil(() => !t.h.server.core.users.has(100), "kicked");
    deepEqual(await t.console("banlist"), ["No banned users"]);
    deepEqual(await t.console("ban 5 cheating"), ["Banned user ID: 5"]);
    deepEqual(await t.console("banlist"), ["=== Ban List (1 users) ===", "User ID: 5 (cheating)"]);
    deepEqual(await t.console("unban 5"), ["Unbanned user ID: 5"], "the original hung here");
    deepEqual(await t.console("unban 5"), ["Error: User ID 5 is not banned"]);
    deepEqual(await t.console("banroom 7 abc"), ["User 7 banned from room 'abc'"]);
    ok(t.mode.ctx.roomBans.has("abc", 7));
    deepEqual(await t.console("unbanroom 7 abc"), ["User 7 unbanned from room 'abc'"]);
    deepEqual(await t.console("roomcreation"), ["Usage: roomcreation <on|off|status>"]);
    deepEqual(await t.console("roomcreation off"), ["Room creation disabled"]);
    deepEqual(await t.console("roomcreation status"), ["Room creation is disabled"]);
    deepEqual(await t.console("replay on"), ["Replay recording enabled"]);
    deepEqual(await t.console("replay status"), ["Replay recording is enabled"]);
    deepEqual(await t.console("replay maybe"), ["Usage: replay <on|off|status>"]);
    deepEqual(await t.console("ipblacklist list"), ["No blacklisted IPs"]);
    await t.ops.call("legacy.ban_ip", { ip: "192.0.2.1" }, { kind: "console" });
    deepEqual(await t.console("ipblacklist list"), ["=== IP Blacklist ===", "192.0.2.1 (game)"]);
    deepEqual(await t.console("ipblacklist remove 192.0.2.1"), ["Removed 192.0.2.1 from the blacklist"]);
    deepEqual(await t.console("ipblacklist remove 192.0.2.1"), ["Error: 192.0.2.1 is not blacklisted"]);
    const alice = await t.h.login(300);
    await t.console("roomcreation on");
    await alice.createRoom("cup");
    deepEqual(await t.console("contest cup enable 300,400"), ["Contest enabled for room 'cup' (whitelist: 300, 400)"]);
    deepEqual(await t.console("contest cup whitelist 400 500"), ["Contest whitelist of room 'cup': 300, 400, 500"]);
    match((await t.console("contest cup start")).join(), /Error: room cup is not waiting for ready/);
    deepEqual(await t.console("contest cup disable"), ["Contest disabled for room 'cup'"]);
    deepEqual(await t.console("reload"), [
      "Reloading plugins...",
      "Plugins reloaded successfully",
      "0 plugin(s) enabled",
    ]);
    deepEqual(await t.console("stop"), ["Shutting down server..."]);
    equal(t.shutdowns.length, 1, "stop really stops");
  } finally {
    await t.close();
  }
});

Deno.test("legacy import: ban files of the working directory on the first start, once per content", async () => {
  const settings = new MemorySettings();
  const cwdFiles = {
    "admin_data.json": JSON.stringify({ version: 1, bannedUsers: [11, 12], bannedRoomUsers: { lobby: [13] } }),
    "banned_users.json": "[\n  12,\n  14\n]\n",
    "banned.txt": "# old list\n15\n\n16 # spammer\n",
  };
  let t = await startLegacy({ settings, cwdFiles });
  try {
    deepEqual(t.h.server.core.bans.userBans().map((b) => b.user_id).sort(), [11, 12, 14, 15, 16]);
    equal(t.h.server.core.bans.userBan(14)?.reason, "imported from banned_users.json");
    ok(t.mode.ctx.roomBans.has("lobby", 13));
    await t.console("unban 11");
  } finally {
    await t.close();
  }
  t = await startLegacy({ settings, cwdFiles });
  try {
    equal(t.h.server.core.bans.userBan(11), undefined, "not imported again: the operator's unban holds");
  } finally {
    await t.close();
  }
  t = await startLegacy({ settings, cwdFiles: { "banned_users.json": "[oops" } });
  try {
    ok(t.h.logs.history().some((r) => /banned_users\.json is not a ban file this server understands/.test(r.msg)));
  } finally {
    await t.close();
  }
});
