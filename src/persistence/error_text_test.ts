import assert from "node:assert/strict";
import { describeError, isDiskFull } from "./error_text.ts";

Deno.test("error text names what PGlite's file system throws instead of [object Object]", () => {
  assert.equal(describeError({ name: "ErrnoError", errno: 51 }), "no space left on device (ENOSPC)");
  assert.equal(describeError({ name: "ErrnoError", errno: 2 }), "permission denied (EACCES)");
  assert.equal(describeError({ name: "ErrnoError", errno: 1234 }), "file system ErrnoError 1234");
  assert.equal(describeError({ message: "boom", other: 1 }), "boom");
  assert.equal(describeError({ a: 1 }), '{"a":1}');
  assert.equal(describeError(new Error("plain")), "plain");
  assert.equal(describeError("text"), "text");
  assert.equal(describeError(null), "null");
  assert.ok(isDiskFull(describeError({ name: "ErrnoError", errno: 51 })));
  assert.ok(isDiskFull('Cannot append to the journal in "x": No space left on device (os error 28)'));
  assert.ok(!isDiskFull("Input/output error (os error 5)"));
});
