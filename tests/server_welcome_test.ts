/**
 * The welcome message after login (spec 3 §2.3 `welcome`, spec 2 §4.2).
 */
import { deepEqual, equal } from "node:assert/strict";
import { Admin } from "../src/server/admin.ts";
import { renderWelcomeLine } from "../src/server/welcome.ts";
import { expectLog, waitUntil } from "./support/describe.ts";
import { startHarness } from "./support/harness.ts";

const ON = (messages: Record<string, string[]> = {}, show_time = false) => ({
  welcome: { enabled: true, show_time, messages },
});

Deno.test("the built-in welcome is localized and lists joinable rooms only", async () => {
  const h = await startHarness({ config: { ...ON(), server_name: "Test Server", heartbeat_timeout: 86_400 } });
  const host = await h.login(100);
  await host.createRoom("open");
  const other = await h.login(200);
  await other.createRoom("closed");
  await other.lockRoom(true);
  const third = await h.login(300);
  await third.createRoom("-secret");
  // The ranking is cached for 30 s (it is asked for on every login).
  await h.advance(30_000);
  const cn = await h.login(400, "zh-CN");
  await expectLog(cn, [
    "Authenticate(Ok)",
    "Message.Chat{user:0,content:欢迎来到 Test Server，Dave！当前在线 4 人。}",
    "Message.Chat{user:0,content:你在本服务器的游玩时长：0.0 小时}",
    "Message.Chat{user:0,content:游玩时长排行：#1 Alice 0.0 小时 | #2 Bob 0.0 小时 | #3 Carol 0.0 小时}",
    "Message.Chat{user:0,content:可加入的房间：open（房主 Alice，1/100）}",
    "Message.Chat{user:0,content:名称以 - 开头的房间不会出现在列表中。}",
  ]);
  await h.close();
});

Deno.test("the built-in welcome says 1 player online (singular), then 2 players online", async () => {
  const h = await startHarness({ config: { ...ON(), server_name: "Test Server", heartbeat_timeout: 86_400 } });
  const first = (c: { received: readonly unknown[] }) =>
    c.received.map((m) => {
      const cmd = m as { type: string; message?: { type: string; content?: string } };
      return cmd.type === "Message" && cmd.message?.type === "Chat" ? cmd.message.content : null;
    }).find((text) => text?.startsWith("Welcome"));
  const alice = await h.login(100);
  await waitUntil(() => first(alice) !== undefined);
  equal(first(alice), "Welcome to Test Server, Alice! 1 player online.");
  const bob = await h.login(200);
  await waitUntil(() => first(bob) !== undefined);
  equal(first(bob), "Welcome to Test Server, Bob! 2 players online.");
  await h.close();
});

Deno.test("configured lines per language with playtime placeholders", async () => {
  const h = await startHarness({
    config: {
      ...ON({
        "en-US": ["Hi [user_name] (#[user_id]), [players] online", "[playtime] / [playtime 100] [time] [unknown]"],
      }),
      heartbeat_timeout: 86_400,
    },
  });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await h.advance(90 * 60 * 1000);
  await alice.ping();
  const bob = await h.login(200);
  await waitUntil(() => bob.received.length >= 3);
  deepEqual(
    bob.received.slice(1).map((c) => c.type === "Message" && c.message.type === "Chat" ? c.message.content : ""),
    [
      "Hi Bob (#200), 2 online",
      "0.0h / 1.5h [time] [unknown]",
    ],
  );
  await h.close();
});

Deno.test("renderWelcomeLine fills [time] only when show_time is on", () => {
  const base = {
    userId: 1,
    userName: "A",
    language: "en-US",
    locale: "en-US" as const,
    serverName: "S",
    playersOnline: 1,
    now: 1_700_000_000_500,
    rooms: [],
    playtime: { seconds: new Map<number, number>(), top: [] },
    nameOf: () => undefined,
  };
  equal(renderWelcomeLine("t=[time]", { ...base, showTime: true }), "t=1700000000");
  equal(renderWelcomeLine("t=[time]", { ...base, showTime: false }), "t=[time]");
  equal(
    renderWelcomeLine("[top_playtime] [active_rooms]", { ...base, showTime: false }),
    "nobody yet none yet, create one!",
  );
});

Deno.test("the online player count follows logins, a relogin, a kick and disconnects without recounting", async () => {
  const h = await startHarness({ config: { heartbeat_timeout: 86_400 } });
  const core = h.server.core;
  // What countOnlinePlayers() used to compute per call: normal users with a live session.
  const recount = () => [...core.users.values()].filter((u) => u.session !== null && u.category === "normal").length;
  const same = (n: number) => {
    equal(core.countOnlinePlayers(), n);
    equal(recount(), n);
  };
  same(0);
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  same(3);
  const again = await h.login(100); // Takes Alice's binding over: still one player.
  await alice.closed;
  same(3);
  new Admin(core).kickUser(200);
  await bob.closed;
  same(2);
  await again.close();
  await waitUntil(() => recount() === 1);
  same(1);
  await carol.close();
  await waitUntil(() => recount() === 0);
  same(0);
  await h.close();
});
