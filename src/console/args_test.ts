import { deepEqual, equal, throws } from "node:assert/strict";
import { argUsage, parseArgs, parseBool, parseInteger } from "./args.ts";
import { OpsError } from "../ops/mod.ts";

Deno.test("parseArgs validates each kind and reads rest arguments", () => {
  const args = parseArgs([
    { name: "user_id", kind: "user" },
    { name: "room_id", kind: "room" },
    { name: "on", kind: "bool" },
    { name: "mode", kind: "choice", choices: ["fixed", "ramp"] },
    { name: "n", kind: "int", min: 1, max: 9, optional: true },
    { name: "message", kind: "text", optional: true },
  ], ["-5", "abc", "off", "RAMP", "3", "hello", "world"]);
  equal(args.int("user_id"), -5);
  equal(args.str("room_id"), "abc");
  equal(args.bool("on"), false);
  equal(args.str("mode"), "ramp");
  equal(args.optInt("n"), 3);
  equal(args.str("message"), "hello world");
  deepEqual(parseArgs([{ name: "ids", kind: "ints", optional: true }], ["1,2", "3"]).ints("ids"), [1, 2, 3]);
  deepEqual(parseArgs([{ name: "ids", kind: "ints", optional: true }], []).ints("ids"), []);
  equal(parseArgs([{ name: "x", kind: "word", optional: true }], []).optStr("x"), undefined);
});

Deno.test("parseArgs refuses bad, missing and extra words with INVALID_ARGUMENT", async (t) => {
  const cases: [Parameters<typeof parseArgs>[0], string[], string][] = [
    [[{ name: "user_id", kind: "user" }], ["x"], 'invalid user_id "x": expected an integer user id'],
    [
      [{ name: "user_id", kind: "user" }],
      ["99999999999"],
      'invalid user_id "99999999999": expected an integer user id',
    ],
    [[{ name: "n", kind: "int", min: 1, max: 5 }], ["6"], 'invalid n "6": expected an integer between 1 and 5'],
    [[{ name: "r", kind: "room" }], ["a".repeat(21)], `invalid room id "${"a".repeat(21)}": string too long`],
    [[{ name: "on", kind: "bool" }], ["maybe"], 'invalid on "maybe": expected on or off'],
    [[{ name: "m", kind: "choice", choices: ["a", "b"] }], ["c"], 'invalid m "c": expected one of a, b'],
    [[{ name: "user_id", kind: "user" }], [], "missing <user_id>"],
    [[{ name: "message", kind: "text" }], [], "missing <message...>"],
    [[], ["extra"], 'unexpected argument "extra"'],
  ];
  for (const [specs, words, message] of cases) {
    await t.step(
      message,
      () =>
        throws(
          () => parseArgs(specs, words),
          (e) => e instanceof OpsError && e.code === "INVALID_ARGUMENT" && e.message === message,
        ),
    );
  }
});

Deno.test("argUsage, parseBool and parseInteger", () => {
  equal(argUsage({ name: "user_id", kind: "user" }), "<user_id>");
  equal(argUsage({ name: "reason", kind: "text", optional: true }), "[reason...]");
  equal(argUsage({ name: "state", kind: "bool", optional: true }), "[state:on|off]");
  equal(argUsage({ name: "mode", kind: "choice", choices: ["fixed", "ramp"] }), "<fixed|ramp>");
  deepEqual(["on", "YES", "1", "off", "False", "0", "x"].map(parseBool), [true, true, true, false, false, false, null]);
  deepEqual(["12", "+3", "-2147483648", "2147483648", "1.5", ""].map((w) => parseInteger(w)), [
    12,
    3,
    -2147483648,
    null,
    null,
    null,
  ]);
});
