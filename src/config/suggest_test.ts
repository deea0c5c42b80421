import assert from "node:assert/strict";
import { editDistance, nearest, suggestEnv, suggestKey, unknownName } from "./suggest.ts";

Deno.test("editDistance counts insertions, deletions, substitutions and adjacent transpositions as one", () => {
  assert.equal(editDistance("port", "port"), 0);
  assert.equal(editDistance("prot", "port"), 1);
  assert.equal(editDistance("admin_pasword", "admin_password"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("nearest suggests only names close for their length", () => {
  const names = ["port", "http_port", "server_name"];
  assert.equal(nearest("prt", names, (n) => n), "port");
  assert.equal(nearest("colour", names, (n) => n), null);
  assert.equal(nearest("servr_nam", names, (n) => n), "server_name");
});

Deno.test("suggestKey and suggestEnv name the key and how to write it", () => {
  assert.equal(suggestKey("admin_pasword")?.name, "admin_password");
  assert.equal(suggestKey("admin_pasword")?.key.secret, true);
  assert.equal(suggestKey("Max-Rooms")?.name, "max_rooms");
  assert.equal(suggestKey("frobnicate"), null);
  assert.equal(suggestEnv("PM_PROT")?.name, "PM_PORT");
  assert.equal(suggestEnv("PM_OPENUDS_ENABLED")?.name, "PM_OPENUDS__ENABLED");
  assert.equal(suggestEnv("PM_DATABASE_URL_FIL")?.name, "PM_DATABASE_URL_FILE");
  assert.equal(suggestEnv("PM_DATABASE_URL_FIL")?.key.path, "database_url");
  assert.equal(suggestEnv("PM_NOPE"), null);
});

Deno.test("unknownName: a warning with the suggestion, a problem when the suggestion is a secret", () => {
  assert.deepEqual(unknownName("Unknown key x", suggestKey("prot")), {
    problem: false,
    message: "Unknown key x is ignored; did you mean port?",
  });
  assert.deepEqual(unknownName("Unknown key x", null), { problem: false, message: "Unknown key x is ignored" });
  const secret = unknownName("Unknown key x", suggestKey("sentry_dns"));
  assert.equal(secret.problem, true);
  assert.match(
    secret.message,
    /^Unknown key x: did you mean sentry_dsn\? A misspelled secret would leave sentry_dsn unset/,
  );
});
