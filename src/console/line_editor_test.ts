import { deepEqual, equal } from "node:assert/strict";
import { parseKeys } from "./keys.ts";
import { LineEditor } from "./line_editor.ts";

function type(e: LineEditor, input: string) {
  return parseKeys(input).keys.map((k) => e.handle(k));
}

Deno.test("line editor: insert, move, backspace, delete, kill", () => {
  const e = new LineEditor();
  type(e, "rooms");
  equal(e.text, "rooms");
  type(e, "\x1b[D\x1b[D\x7f");
  equal(e.text, "roms");
  equal(e.cursor, 2);
  type(e, "o\x1b[H\x1b[3~");
  equal(e.text, "ooms");
  type(e, "\x05 x y\x17");
  equal(e.text, "ooms x ");
  type(e, "\x01\x0b");
  equal(e.text, "");
  type(e, "abc\x1b[D\x15");
  equal(e.text, "c");
  equal(e.cursor, 0);
});

Deno.test("line editor: submit records history; up/down browse it and keep the draft", () => {
  const e = new LineEditor(3);
  deepEqual(type(e, "one\r").at(-1), { t: "submit", line: "one" });
  type(e, "two\rtwo\r\rthree\rfour\r");
  deepEqual(e.history, ["two", "three", "four"], "bounded, no repeats, no blank lines");
  type(e, "dra");
  type(e, "\x1b[A");
  equal(e.text, "four");
  type(e, "\x1b[A\x1b[A\x1b[A");
  equal(e.text, "two");
  type(e, "\x1b[B\x1b[B\x1b[B");
  equal(e.text, "dra");
  deepEqual(type(e, "\x1b[B"), [{ t: "none" }]);
});

Deno.test("line editor: completion, eof and interrupt", () => {
  const e = new LineEditor();
  type(e, "ro");
  deepEqual(e.complete(["room", "rooms"]), ["room", "rooms"]);
  equal(e.text, "room");
  deepEqual(e.complete(["room info"]), []);
  equal(e.text, "room info ");
  deepEqual(type(e, "\x04"), [{ t: "changed" }].slice(0, 0).concat([{ t: "none" }]));
  deepEqual(type(e, "\x03"), [{ t: "interrupt" }]);
  equal(e.text, "");
  deepEqual(type(e, "\x04"), [{ t: "eof" }]);
  deepEqual(type(e, "\t\x1b[5~\x1b[6~\x0c"), [{ t: "complete" }, { t: "page", dir: -1 }, { t: "page", dir: 1 }, {
    t: "redraw",
  }]);
});

Deno.test("line editor: the view scrolls to keep the cursor visible", () => {
  const e = new LineEditor();
  type(e, "abcdefghijklmnopqrstuvwxyz");
  const v = e.view("> ", 12);
  equal(v.text, "> rstuvwxyz");
  equal(v.column, 11);
  type(e, "\x01");
  deepEqual(e.view("> ", 12), { text: "> abcdefghi", column: 2 });
});
