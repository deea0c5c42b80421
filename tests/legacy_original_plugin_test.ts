/**
 * A plugin written for the original Lua host API (lua-cpp: `phira.*`,
 * `register_http_route`, the hooks, `false` from `on_before_command`)
 * runs unchanged: its routes answer from start-up, its hooks see users and
 * rooms as tables, and a refused command gets the protocol's error reply
 * with a localized reason instead of silence.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { startLegacy } from "./support/legacy.ts";

const FIXTURE = new URL("./fixtures/legacy/original-style/", import.meta.url);

async function fixtureFiles(): Promise<Record<string, string>> {
  return {
    "plugin.json": await Deno.readTextFile(new URL("plugin.json", FIXTURE)),
    "init.lua": await Deno.readTextFile(new URL("init.lua", FIXTURE)),
  };
}

Deno.test("an original-style Lua plugin runs unchanged: routes from start-up, hooks with tables, false refuses", async () => {
  const t = await startLegacy({ plugins: { "original-style": await fixtureFiles() } });
  try {
    deepEqual(t.mode.host.list().map((p) => [p.id, p.state]), [["original-style", "enabled"]]);
    const status = await t.fetch("/original/status?x=1");
    equal(status.status, 200);
    equal(status.headers.get("content-type"), "application/json");
    deepEqual(await status.json(), { joins: 0, last: "nobody", query: "x=1", rooms: 0, users: 0 });
    const echo = await t.fetch("/original/echo", { method: "POST", body: "hello" });
    equal(await echo.text(), "got POST hello");
    equal(echo.headers.get("content-type"), "text/plain");
    equal((await t.fetch("/original/echo")).status, 405, "known path, other method");

    const alice = await t.h.login(100);
    const bob = await t.h.login(200, "zh-CN");
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await t.settle();
    // The creator arrives by CreateRoom, not JoinRoom: only Bob's join is one (as in the original).
    deepEqual(await (await t.fetch("/original/status")).json(), {
      joins: 1,
      last: "Bob@abc",
      query: "",
      rooms: 1,
      users: 2,
    });
    const report = t.mode.host.callFunction("original-style", "report", []);
    deepEqual(report, { ok: true, value: "create:abc,join:200" });

    // `false` refuses: the chat gets an error reply in the sender's language, and nobody sees the message.
    const refused = await bob.chat("a badword here").then(() => null, (e: Error) => e.message);
    ok(refused, "the refused chat must fail");
    match(refused, /该操作被服务器插件拒绝/);
    await alice.chat("hello");
    const created = await alice.leaveRoom().then(() => alice.createRoom("forbidden")).then(
      () => null,
      (e: Error) => e.message,
    );
    match(created ?? "", /This action was refused by a server plugin/);
    equal(t.h.server.core.rooms.has("forbidden"), false);

    // After a reload the routes are there again (registered by the new state's on_enable).
    deepEqual(await t.console("reload"), [
      "Reloading plugins...",
      "Plugins reloaded successfully",
      "1 plugin(s) enabled",
    ]);
    deepEqual((await (await t.fetch("/original/status")).json()).joins, 0, "a fresh state");
  } finally {
    await t.close();
  }
});
