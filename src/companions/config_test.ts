import { deepEqual, equal, throws } from "node:assert/strict";
import {
  bindAddressOf,
  CompanionsConfigError,
  DEFAULT_COMMANDS,
  defaultCompanionsConfig,
  parseCompanionsConfig,
  parseCompanionsYaml,
  userInfoPath,
} from "./config.ts";

Deno.test("companions config defaults: the original ports, loopback, custom commands off, no secrets", () => {
  const c = defaultCompanionsConfig();
  deepEqual(
    [c.user_manager.port, c.room.port, c.api.port, c.command.port, c.file.port, c.site.port],
    [2345, 5000, 5001, 7878, 7880, 8080],
  );
  equal(c.bind_address, "127.0.0.1");
  equal(bindAddressOf(c, "site"), "127.0.0.1");
  equal(c.command.allow_custom, false);
  deepEqual(c.command.commands, DEFAULT_COMMANDS);
  equal(c.user_manager.super_admin_password_hash, "");
  equal(c.api.url, "http://127.0.0.1:12347/api/rooms/info");
  equal(userInfoPath(c), "data/companions/user_info.json");
});

Deno.test("companions config from YAML: services moved, switched off, bound elsewhere", () => {
  const c = parseCompanionsYaml(
    [
      "bind_address: 0.0.0.0",
      "data_dir: /srv/companions/",
      "room: { port: 6000, bind_address: 127.0.0.1 }",
      "command: { enabled: false }",
      "api: { url: 'http://game.local:12347/api/rooms/info/' }",
    ].join("\n"),
    "c.yml",
  );
  equal(c.room.port, 6000);
  equal(bindAddressOf(c, "room"), "127.0.0.1");
  equal(bindAddressOf(c, "file"), "0.0.0.0");
  equal(c.command.enabled, false);
  equal(c.api.url, "http://game.local:12347/api/rooms/info", "trailing slash trimmed");
  equal(userInfoPath(c), "/srv/companions/user_info.json");
});

Deno.test("companions config refuses unknown keys, plain passwords, clashing ports and the reserved alias", async (t) => {
  const cases: [unknown, RegExp][] = [
    [{ nope: 1 }, /\(top level\): unknown key nope/],
    [{ room: { prot: 1 } }, /room: unknown key prot/],
    [
      { user_manager: { admin_password_hash: "hunter2" } },
      /user_manager\.admin_password_hash: expected an Argon2id hash/,
    ],
    [
      { command: { password_hash: "$2b$10$abcdefghijklmnopqrstuv" } },
      /command\.password_hash: expected an Argon2id hash/,
    ],
    [{ room: { port: 7878 } }, /command\.port: 7878 is also the port of room/],
    [{ command: { commands: { custom: ["x"] } } }, /reserved for custom commands/],
    [{ command: { commands: { "Bad Alias": ["x"] } } }, /commands\.Bad Alias: invalid alias: expected/],
    [{ command: { commands: { empty: [] } } }, /expected a program and its arguments/],
    [{ database_url: "mysql://x" }, /database_url: expected a postgres:\/\/ URL/],
    [{ site: { port: -1 } }, /site\.port: expected an integer between 0 and 65535/],
  ];
  for (const [raw, re] of cases) {
    await t.step(JSON.stringify(raw), () => {
      throws(
        () => parseCompanionsConfig(raw),
        (e: unknown) => e instanceof CompanionsConfigError && re.test(e.message),
      );
    });
  }
  // Two services on port 0 (OS-chosen) do not clash; a switched-off service's port does not count.
  parseCompanionsConfig({ room: { port: 0 }, api: { port: 0 } });
  parseCompanionsConfig({ room: { port: 7878 }, command: { enabled: false } });
  throws(() => parseCompanionsYaml("a: [", "x.yml"), /Cannot parse x\.yml/);
  throws(() => parseCompanionsYaml("- a", "x.yml"), /expected a mapping/);
});
