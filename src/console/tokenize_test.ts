import { deepEqual, throws } from "node:assert/strict";
import { tokenize, TokenizeError } from "./tokenize.ts";

Deno.test("tokenize splits words and keeps quoted text whole", async (t) => {
  const cases: [string, string[]][] = [
    ["", []],
    ["  help  ", ["help"]],
    ["room info abc", ["room", "info", "abc"]],
    ['broadcast all "two  spaces"', ["broadcast", "all", "two  spaces"]],
    ["ban 5 'a b' c", ["ban", "5", "a b", "c"]],
    ['say "quote \\" inside"', ["say", 'quote " inside']],
    ['x ""', ["x", ""]],
  ];
  for (const [line, words] of cases) await t.step(JSON.stringify(line), () => deepEqual(tokenize(line), words));
});

Deno.test("tokenize rejects an unterminated quote", () => {
  throws(() => tokenize('broadcast all "oops'), TokenizeError);
});
