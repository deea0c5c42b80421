import { deepEqual, equal } from "node:assert/strict";
import { charWidth, fit, parseKeys, textWidth } from "./keys.ts";

Deno.test("parseKeys decodes characters, controls and escape sequences", () => {
  const { keys, rest } = parseKeys(
    "aé\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F\x1b[3~\x1b[5~\x1b[6~\x1bOA\x7f\r\n\t\x03\x04\x01\x05\x15\x0b\x17\x0c",
  );
  deepEqual(keys.map((k) => (k.t === "char" ? k.ch : k.t)), [
    "a",
    "é",
    "up",
    "down",
    "right",
    "left",
    "home",
    "end",
    "delete",
    "pageup",
    "pagedown",
    "up",
    "backspace",
    "enter",
    "tab",
    "interrupt",
    "eof",
    "home",
    "end",
    "kill-line",
    "kill-end",
    "kill-word",
    "redraw",
  ]);
  equal(rest, "");
});

Deno.test("parseKeys keeps a cut escape sequence for the next read", () => {
  const first = parseKeys("x\x1b[");
  deepEqual(first.keys, [{ t: "char", ch: "x" }]);
  equal(first.rest, "\x1b[");
  deepEqual(parseKeys(first.rest + "D").keys, [{ t: "left" }]);
  deepEqual(parseKeys("\x1b").rest, "\x1b");
  deepEqual(parseKeys("\x1b[99~\x1bz").keys, [{ t: "unknown" }, { t: "unknown" }]);
});

Deno.test("widths: wide characters take two columns; fit pads and cuts by width", () => {
  deepEqual(["a", "中", "Ａ", "ｱ", "\u0301"].map(charWidth), [1, 2, 2, 1, 0]);
  equal(textWidth("房间abc"), 7);
  equal(fit("房间abc", 5), "房间a");
  equal(fit("ab", 4), "ab  ");
  equal(fit("a\tb", 3), "a b");
});

Deno.test("fit blanks out C0, DEL and C1 controls so user names cannot drive the terminal", () => {
  equal(fit("a\x1b[2Jb", 6), "a [2Jb");
  equal(fit("x\x9b2Jy\x85\x7f", 7), "x 2Jy  ");
  equal(fit("\u00a0é", 2), "\u00a0é");
});
