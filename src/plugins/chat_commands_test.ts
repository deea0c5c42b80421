import { deepEqual, equal } from "node:assert/strict";
import { parseChatCommand } from "./chat_commands.ts";

Deno.test("chat commands are !word with the rest of the line", () => {
  deepEqual(parseChatCommand("!rank"), { word: "rank", rest: "" });
  deepEqual(parseChatCommand("  !Rank  top 10 "), { word: "rank", rest: "top 10" });
  equal(parseChatCommand("rank"), null);
  equal(parseChatCommand("! rank"), null);
  equal(parseChatCommand("!1x"), null);
});
