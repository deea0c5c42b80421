import assert from "node:assert/strict";
import { takeDevUpstreamPort } from "./dev_option.ts";

Deno.test("takeDevUpstreamPort reads the option and leaves the other arguments in order", async (t) => {
  const ok: [string, string[], number | null, string[]][] = [
    ["absent", ["dev", "--tui"], null, ["dev", "--tui"]],
    ["separate value", ["dev", "--dev-upstream-port", "4000", "--no-cli"], 4000, ["dev", "--no-cli"]],
    ["inline value", ["--dev-upstream-port=0", "dev"], 0, ["dev"]],
    ["the last one wins", ["dev", "--dev-upstream-port=1", "--dev-upstream-port", "2"], 2, ["dev"]],
    ["after -- it is positional", ["dev", "--", "--dev-upstream-port", "5"], null, [
      "dev",
      "--",
      "--dev-upstream-port",
      "5",
    ]],
  ];
  for (const [name, args, port, rest] of ok) {
    await t.step(name, () => assert.deepEqual(takeDevUpstreamPort(args), { ok: true, port, rest }));
  }
  const bad: [string, string[], RegExp][] = [
    ["missing value", ["dev", "--dev-upstream-port"], /needs a port number/],
    ["value looks like an option", ["dev", "--dev-upstream-port", "--tui"], /needs a port number/],
    ["not a number", ["dev", "--dev-upstream-port", "abc"], /"abc": expected a port number 0-65535/],
    ["out of range", ["dev", "--dev-upstream-port=65536"], /"65536": expected a port number/],
    ["negative", ["dev", "--dev-upstream-port=-1"], /"-1": expected a port number/],
    ["empty", ["dev", "--dev-upstream-port="], /"": expected a port number/],
  ];
  for (const [name, args, re] of bad) {
    await t.step(name, () => {
      const result = takeDevUpstreamPort(args);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.message, re);
    });
  }
});
