import assert from "node:assert/strict";
import { loadConfig } from "../config/mod.ts";
import { devEndpointNotice, takeDevUpstreamPort } from "./dev_command.ts";

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

/** Loads with injected inputs; `file` is the text of server_config.yml. */
function load(o: { args?: string[]; env?: Record<string, string>; file?: string }) {
  return loadConfig({
    args: o.args ?? [],
    env: o.env ?? {},
    cwd: "/srv",
    readTextFile: (path) => path === "/srv/server_config.yml" ? o.file ?? null : null,
  });
}

Deno.test("devEndpointNotice names the development upstream and warns when the user's endpoint is overridden", async (t) => {
  const url = "http://127.0.0.1:40001";
  await t.step("default endpoint: info only", () => {
    const notice = devEndpointNotice(load({}), url);
    assert.match(notice.info, /^game API endpoint is the development upstream http:\/\/127\.0\.0\.1:40001 /);
    assert.equal(notice.warning, null);
  });
  const explicit: [string, Parameters<typeof load>[0], string][] = [
    ["file", { file: "game_api_endpoint: https://api.example.com\n" }, "from file server_config.yml line 1"],
    [
      "environment",
      { env: { PM_GAME_API_ENDPOINT: "https://api.example.com" } },
      "from environment PM_GAME_API_ENDPOINT",
    ],
    ["flag", { args: ["dev", "--game-api-endpoint", "https://api.example.com"] }, "from flag --game-api-endpoint"],
  ];
  for (const [name, input, phrase] of explicit) {
    await t.step(`set by ${name}: a warning naming value and source`, () => {
      const notice = devEndpointNotice(load(input), url);
      assert.equal(
        notice.warning,
        `game_api_endpoint = "https://api.example.com" (${phrase}): ignored by the dev command, which uses the ` +
          `development upstream ${url}; run \`start\` to use this endpoint`,
      );
    });
  }
});
