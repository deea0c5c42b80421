import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { loadConfig } from "./load.ts";
import { MASK, maskDatabaseUrl, maskValue } from "./mask.ts";
import { renderEffectiveConfig } from "./render.ts";

Deno.test("maskDatabaseUrl masks whole anything not clearly shaped like a URL with its password in place", async (t) => {
  const whole: [string, string][] = [
    ["opaque URL without //", "notaurl:hunter2"],
    ["opaque postgres URL", "postgres:user:hunter2@host/db"],
    ["single slash", "postgres:/user:hunter2@host/db"],
    ["credentials in the path", "postgres:///user:hunter2@host/db"],
    ["two @ in the authority", "postgres://user:pa@hunter2@host/db"],
    ["key=value DSN", "host=x password=hunter2"],
    ["key=value DSN with a scheme-like start", "db:x password=hunter2"],
    ["URL with a DSN tail", "postgres://host/db password=hunter2"],
    ["newline inside", "postgres://user:hunter2\n@host/db"],
    ["backslash in the authority", "postgres://user:hunter2\\@host/db"],
    ["secret word in the path", "postgres://host/password_hunter2"],
    ["unparsable", "postgres://user:hun/ter2@host/db"],
    ["empty", ""],
  ];
  for (const [name, url] of whole) {
    await t.step(name, () => assert.equal(maskDatabaseUrl(url), MASK));
  }
});

Deno.test("maskDatabaseUrl keeps the readable parts of a well-formed URL", async (t) => {
  const cases: [string, string, string][] = [
    ["password", "postgres://user:hunter2@host/db", "postgres://user:****@host/db"],
    ["no password", "postgres://user@host:5432/db", "postgres://user@host:5432/db"],
    ["empty user", "postgresql://:hunter2@host/db", "postgresql://:****@host/db"],
    ["encoded @ in password", "postgres://user:pa%40hunter2@host/db", "postgres://user:****@host/db"],
    ["colon in password", "postgres://user:pa:hunter2@host/db", "postgres://user:****@host/db"],
    ["IPv6 host", "postgres://user:hunter2@[::1]:5432/db", "postgres://user:****@[::1]:5432/db"],
    ["several hosts", "postgres://user:hunter2@h1,h2/db", "postgres://user:****@h1,h2/db"],
    [
      "secret query parameters by name or value",
      "postgres:///db?host=/tmp&sslpassword=hunter2&options=-c%20password%3Dhunter2&sslmode=require",
      "postgres:///db?host=%2Ftmp&sslpassword=****&options=****&sslmode=require",
    ],
    ["fragment", "postgres://host/db#hunter2", "postgres://host/db#****"],
  ];
  for (const [name, url, want] of cases) {
    await t.step(name, () => {
      assert.equal(maskDatabaseUrl(url), want);
      assert.ok(!maskDatabaseUrl(url).includes("hunter2"));
    });
  }
});

Deno.test("maskValue masks database_url fail-safe in errors and check-config", async (t) => {
  await t.step("maskValue", () => {
    assert.equal(maskValue("database_url", "notaurl:hunter2"), JSON.stringify(MASK));
    assert.equal(maskValue("database_url", null), "(unset)");
  });
  await t.step("a configuration error never shows the password", async () => {
    const urls = ["notaurl:hunter2", "host=x password=hunter2", "mysql://u:pa@hunter2@h/d"];
    for (const url of urls) {
      const error = await (async () => {
        try {
          await loadConfig({ args: [], env: { PM_DATABASE_URL: url }, cwd: "/srv", readTextFile: () => null });
        } catch (e) {
          if (e instanceof ConfigError) return e;
          throw e;
        }
        assert.fail("expected a ConfigError");
      })();
      assert.equal(error.problems.length, 1);
      assert.ok(error.problems[0]?.startsWith(`database_url = "****" (from environment PM_DATABASE_URL)`));
      assert.ok(!error.message.includes("hunter2"), error.message);
    }
  });
  await t.step("check-config output never shows the password", async () => {
    const loaded = await loadConfig({
      args: [],
      env: { PM_DATABASE_URL: "postgres://user:pa@hunter2@host/db" },
      cwd: "/srv",
      readTextFile: () => null,
    });
    const text = renderEffectiveConfig(loaded).join("\n");
    assert.match(text, /database_url += "\*\*\*\*"/);
    assert.ok(!text.includes("hunter2"));
  });
});
