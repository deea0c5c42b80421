import { equal } from "node:assert/strict";
import { escapeControlChars, escapeJsonControls, hasControlChars } from "./control_chars.ts";

Deno.test("escapeControlChars shows C0, DEL and C1 controls and keeps newline, tab and text", () => {
  equal(escapeControlChars("a\x1b[31mb\x07c\x00"), "a\\x1b[31mb\\x07c\\x00");
  equal(escapeControlChars("x\x9b2J\x85\x7f"), "x\\x9b2J\\x85\\x7f");
  equal(escapeControlChars("one\ntwo\tthree"), "one\ntwo\tthree");
  equal(escapeControlChars("héllo ★ 漢字 \xa0"), "héllo ★ 漢字 \xa0");
});

Deno.test("hasControlChars and escapeJsonControls", () => {
  equal(hasControlChars("plain"), false);
  equal(hasControlChars("new\nline"), true);
  equal(hasControlChars("c1\x90"), true);
  equal(escapeJsonControls(JSON.stringify("a\x9bb")), '"a\\u009bb"');
});
