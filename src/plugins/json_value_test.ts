import { deepEqual, equal, throws } from "node:assert/strict";
import { apiError, apiOk, fromJsonValue, fromJsonValues, readApiResult, toJsonValue } from "./json_value.ts";

Deno.test("json-value carries every JSON value; arrays and objects as JSON text", () => {
  for (const value of [null, true, 0, -7, 1.5, "text", [1, "a"], { a: { b: [null] } }]) {
    deepEqual(fromJsonValue(toJsonValue(value)), value);
  }
  deepEqual(toJsonValue(42), { tag: "integer", val: 42n });
  deepEqual(toJsonValue([1]), { tag: "array", val: "[1]" });
  deepEqual(toJsonValue(Number.NaN), { tag: "null" });
  // Beyond 2^53 the exact digits travel as text.
  equal(fromJsonValue({ tag: "integer", val: 2n ** 60n }), "1152921504606846976");
  deepEqual(toJsonValue(2n ** 70n), { tag: "text", val: "1180591620717411303424" });
});

Deno.test("malformed json-values are refused with the position", () => {
  throws(() => fromJsonValue({ tag: "object", val: "[1]" }), /holds another kind/);
  throws(() => fromJsonValue({ tag: "array", val: "{" }), /does not hold JSON text/);
  throws(() => fromJsonValue({ tag: "nope" }), /unknown case/);
  throws(() => fromJsonValues([{ tag: "null" }, { tag: "array", val: "x" }]), /argument 2/);
  throws(() => fromJsonValues("x"), /expected a list/);
});

Deno.test("api-result: ok and error both ways", () => {
  deepEqual(readApiResult(apiOk({ a: 1 })), { ok: true, value: { a: 1 } });
  deepEqual(readApiResult(apiError("no")), { ok: false, error: "no" });
  equal(readApiResult({ tag: "ok", val: { tag: "array", val: "{" } }).ok, false);
  equal(readApiResult(7).ok, false);
});
