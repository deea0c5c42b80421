import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { loadConfig, type LoadedConfig } from "./load.ts";

type Input = { file: string; env?: Record<string, string> };

/** Loads `/srv/server_config.yml` with everything injected. */
function load(input: Input): Promise<LoadedConfig> {
  return loadConfig({
    args: [],
    env: input.env ?? {},
    cwd: "/srv",
    readTextFile: (path) => path === "/srv/server_config.yml" ? input.file : null,
  });
}

/** Warnings other than the Development profile's advice about unset secrets. */
const ownWarnings = (loaded: LoadedConfig) => loaded.warnings.filter((w) => !w.includes("profile Production"));

/** The ConfigError thrown by loading `input`. */
async function failure(input: Input): Promise<ConfigError> {
  try {
    await load(input);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  assert.fail("expected a ConfigError");
}

const WELCOME = [
  "port: 12346", // 1
  "welcome:", // 2
  "  messages:", // 3
  "    english!:", // 4
  "      - hello", // 5
  "    en-US:", // 6
  "      - hi", // 7
  "      - 5", // 8
].join("\n") + "\n";

Deno.test("config problems name the line of a nested map key, not its parent's", async () => {
  const error = await failure({ file: WELCOME });
  assert.deepEqual(error.problems, [
    'welcome.messages.english! = "english!" (from file server_config.yml line 4): ' +
    "invalid key: expected a language tag such as en-US",
    "welcome.messages.en-US[1] = 5 (from file server_config.yml line 8): expected a string",
  ]);
});

Deno.test("config problems in flow and deeper structures name their own line", async () => {
  const error = await failure({
    file: "monitors:\n  - 1\n  - 2\n  - x\ntable_retention:\n  events:\n    days: 0\n  visits: {max_rows: 5}\n",
  });
  assert.deepEqual(error.problems, [
    'monitors[2] = "x" (from file server_config.yml line 4): expected a 32-bit integer',
    "table_retention.events.days = 0 (from file server_config.yml line 7): expected an integer between 1 and 36500",
  ]);
});

Deno.test("a later layer's value is reported with its own source, not the file's nested lines", async () => {
  const error = await failure({ file: WELCOME, env: { PM_WELCOME__MESSAGES: '{"english!":["x"]}' } });
  assert.deepEqual(error.problems, [
    'welcome.messages.english! = "english!" (from environment PM_WELCOME__MESSAGES): ' +
    "invalid key: expected a language tag such as en-US",
  ]);
});

Deno.test("nested lines survive an environment override of a sibling key", async () => {
  const error = await failure({ file: WELCOME, env: { PM_WELCOME__ENABLED: "false" } });
  assert.match(error.problems[0] ?? "", /^welcome\.messages\.english! = .* line 4\): invalid key/);
});

Deno.test("unknown fields in a table_retention rule are warnings naming key path and source", async (t) => {
  await t.step("from the file, with the field's line; the rule still applies", async () => {
    const loaded = await load({
      file: "table_retention:\n  events:\n    days: 3\n    dayz: 5\n    time_col: created_at\n",
    });
    assert.deepEqual(loaded.config.table_retention, { events: { days: 3, time_col: "created_at" } });
    assert.deepEqual(ownWarnings(loaded), [
      'Unknown configuration key "table_retention.events.dayz" (from file server_config.yml line 4) is ignored',
    ]);
  });
  await t.step("from the environment", async () => {
    const loaded = await load({ file: "", env: { PM_TABLE_RETENTION: '{"visits":{"max_rows":10,"rows":1}}' } });
    assert.deepEqual(loaded.config.table_retention, { visits: { max_rows: 10 } });
    assert.ok(loaded.warnings.includes(
      'Unknown configuration key "table_retention.visits.rows" (from environment PM_TABLE_RETENTION) is ignored',
    ));
  });
  await t.step("a rule left with no known field is warned to do nothing", async () => {
    const loaded = await load({ file: "table_retention:\n  events:\n    rows: 5\n" });
    assert.deepEqual(loaded.config.table_retention, { events: {} });
    assert.deepEqual(ownWarnings(loaded), [
      'Unknown configuration key "table_retention.events.rows" (from file server_config.yml line 3) is ignored',
      "table_retention.events = {} (from file server_config.yml line 2): has neither max_rows nor days; " +
      "the rule does nothing",
    ]);
  });
});
