import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { OpsError } from "../ops/mod.ts";
import { CommandRegistry } from "./registry.ts";

function registry(): CommandRegistry {
  const r = new CommandRegistry({ now: () => 1000 });
  r.register({
    name: "ban",
    args: [{ name: "user_id", kind: "user" }],
    help: "ban",
    group: "Users",
    run: (a) => [`ban ${a.int("user_id")}`],
  });
  r.register({
    name: "ban ip",
    args: [{ name: "ip", kind: "word" }],
    help: "ban ip",
    group: "Users",
    run: (a) => [`ban ip ${a.str("ip")}`],
  });
  r.register({ name: "users", aliases: ["u"], help: "list", group: "Users", run: () => ["none"] });
  r.register({
    name: "boom",
    help: "fails",
    run: () => {
      throw new Error("kaput");
    },
  });
  r.register({
    name: "refuse",
    help: "refuses",
    run: () => {
      throw new OpsError("FORBIDDEN", "no");
    },
  });
  return r;
}

Deno.test("registry resolves the longest name and aliases, case-insensitively", async () => {
  const r = registry();
  deepEqual(await r.execute("ban 5", { kind: "console" }), ["ban 5"]);
  deepEqual(await r.execute("BAN IP 1.2.3.4", { kind: "console" }), ["ban ip 1.2.3.4"]);
  deepEqual(await r.execute("u", { kind: "console" }), ["none"]);
  deepEqual(r.resolve(["ban", "ip", "x"])?.rest, ["x"]);
  equal(r.resolve(["nothing"]), null);
});

Deno.test("registry turns failures into codes; unexpected errors are INTERNAL and logged", async () => {
  const r = registry();
  deepEqual(await r.run("refuse", { kind: "console" }), {
    ok: false,
    code: "FORBIDDEN",
    message: "no",
    lines: ["error: no"],
  });
  const boom = await r.run("boom", { kind: "console" });
  ok(!boom.ok && boom.code === "INTERNAL" && boom.message === "internal error: kaput");
  const bad = await r.run("ban x", { kind: "console" });
  deepEqual(bad.lines, ['error: invalid user_id "x": expected an integer user id', "usage: ban <user_id>"]);
});

Deno.test("registry refuses taken names and misplaced rest arguments; unregister frees a name", () => {
  const r = registry();
  throws(() => r.register({ name: "U", help: "", run: () => [] }), /name is taken/);
  throws(() => r.register({ name: "a b c d", help: "", run: () => [] }), /Cannot register/);
  throws(
    () =>
      r.register({
        name: "x",
        args: [{ name: "t", kind: "text" }, { name: "y", kind: "word" }],
        help: "",
        run: () => [],
      }),
    /rest argument must come last/,
  );
  equal(r.unregister("u"), true);
  equal(r.resolve(["users"]), null);
  equal(r.unregister("users"), false);
  const off = r.register({ name: "users", help: "again", run: () => ["again"] });
  off();
  equal(r.resolve(["users"]), null);
});

Deno.test("registry help, completion and the input log", async () => {
  const r = registry();
  deepEqual(r.help("ban"), ["Users:", "  ban <user_id>  ban", "  ban ip <ip>    ban ip"]);
  deepEqual(r.complete("b"), ["ban", "boom"]);
  deepEqual(r.complete("ban "), ["ban ip"]);
  deepEqual(r.complete("zz"), []);
  await r.run("u", { kind: "in-game", userId: 7, name: "Op" });
  await r.run("u", { kind: "openuds", session: "s-1" });
  deepEqual(r.inputs.recent(5).map((i) => [i.source, i.actor, i.input, i.time]), [
    ["in-game", "7", "u", 1000],
    ["openuds", "s-1", "u", 1000],
  ]);
});
