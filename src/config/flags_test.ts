import assert from "node:assert/strict";
import { dropTaskSeparator, parseFlags, suggestFlag } from "./flags.ts";

/** `path=value` pairs of the assignments, for compact assertions. */
function values(args: string[]): Record<string, unknown> {
  return Object.fromEntries(parseFlags(args).assignments.map((a) => [a.path, a.value]));
}

Deno.test("parseFlags accepts --key value and --key=value", () => {
  assert.deepEqual(values(["--port", "1", "--http-port=2", "--game-api-endpoint", "https://a.example"]), {
    port: 1,
    http_port: 2,
    game_api_endpoint: "https://a.example",
  });
});

Deno.test("parseFlags accepts snake_case spellings of kebab-case flags", () => {
  assert.deepEqual(values(["--http_port=3", "--wasm_runtime.max_memory_mb", "9"]), {
    http_port: 3,
    "wasm_runtime.max_memory_mb": 9,
  });
});

Deno.test("parseFlags handles boolean forms", async (t) => {
  const cases: [string[], boolean][] = [
    [["--chat-enabled"], true],
    [["--no-chat-enabled"], false],
    [["--chat-enabled=false"], false],
    [["--chat-enabled=off"], false],
    [["--chat-enabled", "no"], false],
    [["--chat-enabled", "true"], true],
  ];
  for (const [args, expected] of cases) {
    await t.step(args.join(" "), () => assert.deepEqual(values(args), { chat_enabled: expected }));
  }
  await t.step("a positional after a boolean flag is not consumed", () => {
    const result = parseFlags(["--chat-enabled", "start"]);
    assert.deepEqual(result.assignments.map((a) => a.value), [true]);
    assert.deepEqual(result.rest, ["start"]);
  });
});

Deno.test("parseFlags uses dots for nested keys", () => {
  assert.deepEqual(values(["--openuds.enabled", "--openuds.socket-path=/run/c.sock", "--no-update.auto"]), {
    "openuds.enabled": true,
    "openuds.socket_path": "/run/c.sock",
    "update.auto": false,
  });
});

Deno.test("parseFlags records the flag as the source", () => {
  const result = parseFlags(["--no-cli-enabled", "--port=5"]);
  assert.deepEqual(result.assignments.map((a) => a.source), [
    { kind: "flag", name: "--no-cli-enabled" },
    { kind: "flag", name: "--port" },
  ]);
});

Deno.test("parseFlags returns unknown flags and positionals untouched", () => {
  const result = parseFlags(["start", "--tui", "--help", "-v", "--no-tui", "--port", "1", "x"]);
  assert.deepEqual(result.rest, ["start", "--tui", "--help", "-v", "--no-tui", "x"]);
  assert.deepEqual(result.problems, []);
});

Deno.test("parseFlags: --no- only negates boolean keys", () => {
  const result = parseFlags(["--no-port"]);
  assert.deepEqual(result.assignments, []);
  assert.deepEqual(result.rest, ["--no-port"]);
});

Deno.test("parseFlags reads --config in both forms", () => {
  assert.equal(parseFlags(["--config", "a.yml"]).configPath, "a.yml");
  assert.equal(parseFlags(["--config=b.yml", "start"]).configPath, "b.yml");
  assert.equal(parseFlags(["start"]).configPath, null);
  assert.deepEqual(parseFlags(["--config"]).problems, ["flag --config needs a file path"]);
});

Deno.test("parseFlags reports a value-taking flag without a value", () => {
  assert.deepEqual(parseFlags(["--port"]).problems, ["flag --port needs a value (port)"]);
  assert.deepEqual(parseFlags(["--port", "--tui"]).problems, ["flag --port needs a value (port)"]);
});

Deno.test("parseFlags: the last occurrence wins and JSON lists work", () => {
  assert.deepEqual(values(["--port=1", "--port=2", "--monitors", "[3,4]", "--proxy-allow-cidr=10.0.0.0/8"]), {
    port: 2,
    monitors: [3, 4],
    proxy_allow_cidr: ["10.0.0.0/8"],
  });
});

Deno.test("parseFlags warns when a secret is given on the command line", () => {
  const result = parseFlags(["--admin-password=hunter2hunter2"]);
  assert.equal(result.warnings.length, 1);
  assert.match(result.warnings[0] ?? "", /admin_password .*--admin-password.* process list/);
  assert.ok(!result.warnings[0]?.includes("hunter2"));
});

Deno.test("parseFlags stops at --", () => {
  const result = parseFlags(["--port=1", "--", "--port=2"]);
  assert.deepEqual(values(["--port=1", "--", "--port=2"]), { port: 1 });
  assert.deepEqual(result.rest, ["--", "--port=2"]);
});

Deno.test("suggestFlag names the nearest configuration flag, or nothing", async (t) => {
  const cases: [string, string | null][] = [
    ["--prot", "--port"],
    ["--openuds-enabled", "--openuds.enabled"],
    ["--OPENUDS_SOCKET_PATH", "--openuds.socket-path"],
    ["--http-prot=5", "--http-port"],
    ["--confg", "--config"],
    ["--no-chat-enabeld", "--no-chat-enabled"],
    ["--completely-unrelated-thing", null],
    ["--x", null],
  ];
  for (const [flag, expected] of cases) await t.step(flag, () => assert.equal(suggestFlag(flag), expected));
});

Deno.test("dropTaskSeparator drops the -- that deno task passes on (deno task start -- --port 1)", () => {
  assert.deepEqual(dropTaskSeparator(["start", "--", "--port", "1"]), ["start", "--port", "1"]);
  assert.deepEqual(dropTaskSeparator(["--", "--port", "1"]), ["--port", "1"]);
  assert.deepEqual(dropTaskSeparator(["start", "--port", "1"]), ["start", "--port", "1"]);
  assert.deepEqual(dropTaskSeparator(["--port", "--", "x"]), ["--port", "--", "x"], "not after an option");
  assert.deepEqual(dropTaskSeparator([]), []);
});
