import { deepEqual, equal, ok } from "node:assert/strict";
import { textWidth } from "./keys.ts";
import { renderScreen, type ScreenModel } from "./screen.ts";

const MODEL: ScreenModel = {
  title: " Chorus — 1 players",
  rooms: ["abc  SelectingChart", "xyz  Playing"],
  users: ["100 Alice  abc"],
  output: [{ text: "> rooms" }, { text: "2 room(s):" }],
  logs: Array.from({ length: 30 }, (_, i) => ({ text: `log ${i}` })),
  logScroll: 0,
  prompt: { text: "> roo", column: 5 },
};

Deno.test("screen: every line is exactly the terminal width and the prompt is last", () => {
  const s = renderScreen(MODEL, 60, 20);
  equal(s.lines.length, 20);
  for (const line of s.lines.slice(0, -1)) equal(textWidth(line), 60, line);
  equal(s.lines.at(-1)!.trimEnd(), "> roo");
  deepEqual(s.cursor, { row: 19, column: 5 });
  ok(s.lines[1]!.startsWith("┌─ Rooms (2) ─"));
  ok(s.lines[1]!.includes("┌─ Online users (1) ─"));
  ok(s.lines[2]!.startsWith("│abc  SelectingChart"));
  ok(s.lines.some((l) => l.startsWith("┌─ Output ")));
  ok(s.lines.some((l) => l.startsWith("│2 room(s):")));
});

Deno.test("screen: the log pane shows the newest lines and scrolls; long lists say how many more", () => {
  const s = renderScreen({ ...MODEL, rooms: Array.from({ length: 20 }, (_, i) => `room ${i}`) }, 60, 20);
  const text = s.lines.join("\n");
  ok(text.includes("│log 29"));
  ok(!text.includes("│log 5 "));
  ok(/│… \d+ more/.test(text));
  const scrolled = renderScreen({ ...MODEL, logScroll: 10 }, 60, 20).lines.join("\n");
  ok(scrolled.includes("Log (scrolled up 10; PgDn)"));
  ok(scrolled.includes("│log 19") && !scrolled.includes("│log 29"));
});

Deno.test("screen: colour codes wrap styled lines only when colour is on", () => {
  const model = { ...MODEL, output: [{ text: "error: no", style: "error" as const }] };
  ok(renderScreen(model, 60, 20, true).lines.some((l) => l.includes("\x1b[31merror: no")));
  ok(!renderScreen(model, 60, 20, false).lines.join("").includes("\x1b["));
  equal(renderScreen(MODEL, 5, 3).lines.length, 8, "a tiny terminal gets the smallest layout");
});
