/**
 * Every rejected command gets its error reply with the exact string
 * (protocol.md §5.4; spec 3 §4.1 rule 1), localized by the user's language.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { expectLog, mark, waitUntil } from "./support/describe.ts";
import { devToken, startHarness } from "./support/harness.ts";

Deno.test("room commands outside a room answer `no room`", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  for (
    const call of [
      () => alice.chat("hi"),
      () => alice.leaveRoom(),
      () => alice.lockRoom(true),
      () => alice.cycleRoom(true),
      () => alice.selectChart(1),
      () => alice.requestStart(),
      () => alice.ready(),
      () => alice.cancelReady(),
      () => alice.played(100001),
      () => alice.abort(),
    ]
  ) {
    await assertRejectsWithReason(call(), "no room");
  }
  await h.close();
});

Deno.test("create and join errors: already in room, occupied, not found, locked, ongoing, monitor, full", async () => {
  const h = await startHarness({ config: { max_users_per_room: 2 } });
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  await alice.createRoom("abc");
  await assertRejectsWithReason(alice.createRoom("other"), "already in room");
  await assertRejectsWithReason(alice.joinRoom("abc"), "already in room");
  await assertRejectsWithReason(bob.createRoom("abc"), "Room ID is occupied");
  await assertRejectsWithReason(bob.joinRoom("nope"), "room not found");
  await alice.lockRoom(true);
  await assertRejectsWithReason(bob.joinRoom("abc"), "Room is locked");
  await alice.lockRoom(false);
  await assertRejectsWithReason(bob.joinRoom("abc", true), "Permission denied. You can't monitor this room.");
  await bob.joinRoom("abc");
  await assertRejectsWithReason(carol.joinRoom("abc"), "Room is full");
  await alice.selectChart(1);
  await alice.requestStart();
  await assertRejectsWithReason(carol.joinRoom("abc"), "Game is ongoing");
  await h.close();
});

Deno.test("host-only, state and readiness errors", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await carol.joinRoom("abc");
  await assertRejectsWithReason(bob.lockRoom(true), "only host can do this");
  await assertRejectsWithReason(bob.cycleRoom(true), "only host can do this");
  await assertRejectsWithReason(bob.selectChart(1), "only host can do this");
  await assertRejectsWithReason(alice.requestStart(), "No chart selected");
  await alice.selectChart(1);
  await assertRejectsWithReason(bob.requestStart(), "only host can do this");
  await alice.requestStart();
  await assertRejectsWithReason(alice.selectChart(2), "invalid state");
  await assertRejectsWithReason(alice.requestStart(), "invalid state");
  await assertRejectsWithReason(alice.ready(), "already ready");
  await assertRejectsWithReason(bob.cancelReady(), "not ready");
  await bob.ready();
  await carol.ready();
  // Playing now.
  await assertRejectsWithReason(bob.played(100001), "invalid record");
  await bob.played(200001);
  await assertRejectsWithReason(bob.played(200002), "already uploaded");
  await assertRejectsWithReason(bob.abort(), "already uploaded");
  await carol.abort();
  await assertRejectsWithReason(carol.abort(), "aborted");
  await assertRejectsWithReason(carol.played(300001), "aborted");
  await h.close();
});

Deno.test("a record lookup failure passes the upstream's error text through", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await assertRejectsWithReason(alice.played(999), "Cannot fetch record 999: HTTP 404 Not Found");
  await h.close();
});

Deno.test("an unknown chart falls back to the name #<id>", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  await alice.createRoom("abc");
  const a = mark(alice);
  await alice.selectChart(5_000_000);
  await expectLog(alice, [
    "Message.SelectChart{user:100,name:#5000000,id:5000000}",
    "ChangeState(SelectChart:5000000)",
    "SelectChart(Ok)",
  ], a);
  await h.close();
});

Deno.test("authentication errors: bad token, repeated authenticate, commands before login", async () => {
  const h = await startHarness();
  const early = await h.connect();
  await assertRejectsWithReason(early.createRoom("x"), "not authenticated");
  await assertRejectsWithReason(early.joinRoom("x"), "not authenticated");
  const rtt = await early.ping();
  equal(typeof rtt, "number");
  await early.authenticate(devToken(100));
  await assertRejectsWithReason(early.authenticate(devToken(100)), "repeated authenticate");
  const bad = await h.connect();
  await assertRejectsWithReason(bad.authenticate("not-a-valid-token"), "failed to fetch info");
  await bad.closed;
  equal(bad.closeReason?.code, "eof");
  await h.close();
});

Deno.test("errors are localized for zh-CN and zh-TW users; unknown languages fall back to en-US", async () => {
  const h = await startHarness({ config: { max_users_per_room: 1 } });
  const cn = await h.login(100, "zh-CN");
  const tw = await h.login(200, "zh-TW");
  const ja = await h.login(300, "ja-JP");
  await cn.createRoom("abc");
  await assertRejectsWithReason(tw.joinRoom("abc"), "房間已滿");
  await assertRejectsWithReason(ja.joinRoom("abc"), "Room is full");
  await assertRejectsWithReason(cn.createRoom("abc"), "你已经在房间中");
  await assertRejectsWithReason(tw.chat("x"), "你不在房間中");
  await h.close();
});

Deno.test("chat disabled, room creation disabled and the room limit answer with their errors", async () => {
  const h = await startHarness({ config: { chat_enabled: false, max_rooms: 1 } });
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await assertRejectsWithReason(alice.chat("hi"), "Chat is disabled on this server");
  await assertRejectsWithReason(bob.createRoom("second"), "The server has reached its room limit");
  await h.close();
  const h2 = await startHarness({ config: { room_creation_enabled: false } });
  const carol = await h2.login(300);
  await assertRejectsWithReason(carol.createRoom("x"), "Room creation is disabled on this server");
  await h2.close();
});

Deno.test("a game-monitor session cannot create a room, in its language; it can still spectate", async () => {
  const h = await startHarness();
  const gm = await h.connect();
  await gm.gameMonitorAuthenticate(devToken(9));
  await assertRejectsWithReason(gm.createRoom("gm-room"), "invalid command for this session");
  equal(h.server.core.rooms.has("gm-room"), false, "no room was created");
  equal(h.server.core.users.get(-9)?.roomId, null, "the monitor is in no room");
  const zh = await h.connect();
  await zh.gameMonitorAuthenticate(devToken(10, "zh-CN"));
  await assertRejectsWithReason(zh.createRoom("gm-zh"), "当前会话不能执行此命令");
  // The session is still usable: it spectates a player's room.
  const alice = await h.login(100);
  await alice.createRoom("abc");
  equal((await gm.joinRoom("abc", true)).live, true);
  await h.close();
});

/** `n` CJK characters (3 UTF-8 bytes each). */
const cjk = (n: number) => "字".repeat(n);

Deno.test("chat counts characters, not bytes: 200 CJK characters pass, 201 get chat-too-long", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200, "zh-CN");
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.chat(cjk(200));
  const heard = await bob.waitForMessage("Chat");
  deepEqual(heard, { type: "Chat", user: 100, content: cjk(200) });
  const b = mark(bob);
  await assertRejectsWithReason(alice.chat(cjk(201)), "Message is too long (at most 200 characters)");
  await assertRejectsWithReason(bob.chat(cjk(201)), "消息过长（最多 200 个字符）");
  // Astral characters count once each: 200 emoji (800 bytes) are accepted.
  await bob.chat("😀".repeat(200));
  await expectLog(bob, [
    "Chat(Err:消息过长（最多 200 个字符）)",
    "Message.Chat{user:200,content:" + "😀".repeat(200) + "}",
    "Chat(Ok)",
  ], b);
  // Both connections stay open and usable.
  await alice.chat("still here");
  await bob.ping();
  await h.close();
});

Deno.test("a joiner gets the last 50 chat lines in order (default chat_history_limit)", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  await alice.createRoom("abc");
  for (let i = 1; i <= 55; i++) {
    await alice.chat(`line ${i}`);
    // Chat is limited to 10 per 3 s (spec 3 §5 rule 6): refill before the bucket runs out.
    if (i % 10 === 0) await h.advance(3000);
  }
  const bob = await h.login(200);
  await bob.joinRoom("abc");
  const chats = () => bob.received.filter((c) => c.type === "Message" && c.message.type === "Chat");
  await waitUntil(() => chats().length >= 50, "50 replayed chat lines");
  deepEqual(
    chats().map((c) =>
      c.type === "Message" && c.message.type === "Chat" ? `${c.message.user}:${c.message.content}` : ""
    ),
    Array.from({ length: 50 }, (_, i) => `100:line ${i + 6}`),
  );
  await h.close();
});

Deno.test("Played's record fetch: a stalled request is hedged by a second one; the budget is record_budget_ms", async (t) => {
  await t.step("a request that never answers gets a second one after 1.5 s, which is accepted", async () => {
    const h = await startHarness();
    const alice = await h.login(100);
    await alice.createRoom("abc");
    await alice.selectChart(1);
    await alice.requestStart();
    h.dev.state.setFault("record", { delayMs: 600_000, times: 1 });
    const played = alice.played(100001);
    let settled = false;
    played.then(() => (settled = true), () => (settled = true));
    // In 100 ms steps: the hedge (1.5 s) answers long before the first attempt's 5 s timeout.
    let steps = 0;
    while (!settled && steps < 60) {
      await h.advance(100);
      steps++;
    }
    ok(steps >= 15 && steps < 30, `answered after ${steps} steps`);
    await played;
    // Both requests reached upstream; the stalled one was abandoned when the second answered.
    equal(h.dev.state.requests.filter((r) => r.endpoint === "record").length, 2);
    await h.close();
  });
  await t.step("an upstream that never answers fails the command when record_budget_ms runs out", async () => {
    const h = await startHarness({ config: { record_budget_ms: 3000 } });
    const alice = await h.login(100);
    await alice.createRoom("abc");
    await alice.selectChart(1);
    await alice.requestStart();
    h.dev.state.setFault("record", { delayMs: 600_000 });
    const played = alice.played(100001);
    let error: unknown = null;
    played.catch((e) => (error = e));
    for (let i = 0; i < 29; i++) await h.advance(100);
    equal(error, null);
    for (let i = 0; i < 5 && error === null; i++) await h.advance(100);
    ok(String(error).includes("Cannot fetch record 100001: request timed out after"), String(error));
    await h.close();
  });
});
