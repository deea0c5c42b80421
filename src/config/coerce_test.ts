import assert from "node:assert/strict";
import { coerceText, isBooleanWord } from "./coerce.ts";
import { keyByPath, type KeyInfo } from "./keys.ts";

const key = (path: string): KeyInfo => {
  const info = keyByPath(path);
  assert.ok(info, path);
  return info;
};

Deno.test("coerceText converts numbers, including floats and exponents", () => {
  const float: KeyInfo = { ...key("port"), kind: "number" };
  assert.deepEqual(coerceText(float, "1.25"), { ok: true, value: 1.25 });
  assert.deepEqual(coerceText(float, "-2e3"), { ok: true, value: -2000 });
  assert.deepEqual(coerceText(key("port"), "12346"), { ok: true, value: 12346 });
  // not a number: passed through so validation names the value
  assert.deepEqual(coerceText(key("port"), "12a"), { ok: true, value: "12a" });
  assert.deepEqual(coerceText(key("port"), "Infinity"), { ok: true, value: "Infinity" });
});

Deno.test("coerceText converts boolean words", () => {
  for (const word of ["true", "1", "yes", "on", "TRUE", " On "]) {
    assert.deepEqual(coerceText(key("chat_enabled"), word), { ok: true, value: true }, word);
  }
  for (const word of ["false", "0", "no", "off", "False"]) {
    assert.deepEqual(coerceText(key("chat_enabled"), word), { ok: true, value: false }, word);
  }
  assert.deepEqual(coerceText(key("chat_enabled"), "maybe"), { ok: true, value: "maybe" });
  assert.equal(isBooleanWord("Yes"), true);
  assert.equal(isBooleanWord("start"), false);
});

Deno.test("coerceText treats empty and null as unset only for nullable keys", () => {
  assert.deepEqual(coerceText(key("max_rooms"), ""), { ok: true, value: null });
  assert.deepEqual(coerceText(key("max_rooms"), "NULL"), { ok: true, value: null });
  assert.deepEqual(coerceText(key("database_url"), ""), { ok: true, value: null });
  // a nullable string keeps the word "null" as text
  assert.deepEqual(coerceText(key("admin_password"), "null"), { ok: true, value: "null" });
  assert.deepEqual(coerceText(key("port"), ""), { ok: true, value: "" });
  assert.deepEqual(coerceText(key("openuds.auth_token"), ""), { ok: true, value: "" });
});

Deno.test("coerceText parses JSON for lists, maps and sections", () => {
  assert.deepEqual(coerceText(key("monitors"), " [1, 2] "), { ok: true, value: [1, 2] });
  assert.deepEqual(coerceText(key("monitors"), "1,x"), { ok: true, value: [1, "x"] });
  assert.deepEqual(coerceText(key("welcome.messages"), '{"en":["a"]}'), { ok: true, value: { en: ["a"] } });
  assert.deepEqual(coerceText(key("openuds"), '{"enabled":true}'), { ok: true, value: { enabled: true } });
  assert.deepEqual(coerceText(key("table_retention"), "[1]"), { ok: false, message: "expected a JSON object" });
  const broken = coerceText(key("monitors"), "[1,");
  assert.equal(broken.ok, false);
});
