import { equal, throws } from "node:assert/strict";
import type { CommandView } from "../server/mod.ts";
import { CommandVetoes, MAX_VETOES } from "./vetoes.ts";

function view(type: string, userId: number | null, roomId: string | null): CommandView {
  return { type, userId, roomId } as unknown as CommandView;
}

Deno.test("command vetoes match by user, room and command, expire, and are bounded", () => {
  const v = new CommandVetoes();
  equal(v.check(view("Chat", 5, "r"), 0), null);
  const mute = v.add({ owner: "p", userId: 5, roomId: null, commands: ["Chat"], reason: "muted", until: 1000 }, 0);
  v.add({ owner: "q", userId: null, roomId: "r", commands: [], reason: "frozen", until: null }, 0);
  v.add({ owner: "q", userId: 7, roomId: "x", commands: ["Ready"], reason: "not in x", until: null }, 0);
  equal(v.check(view("Chat", 5, null), 10), "muted");
  equal(v.check(view("Ready", 5, null), 10), null);
  equal(v.check(view("Ready", 6, "r"), 10), "frozen");
  equal(v.check(view("Ready", 7, "y"), 10), null);
  equal(v.check(view("Ready", 7, "x"), 10), "not in x");
  equal(v.check(view("Chat", 5, null), 1000), null, "expired");
  equal(v.remove(mute.id, "q"), false);
  equal(v.removeOwner("q"), 2);
  equal(v.list(0).length, 1);
  throws(
    () => v.add({ owner: "p", userId: null, roomId: null, commands: [], reason: "x", until: null }, 0),
    /names a user_id/,
  );
  throws(
    () => v.add({ owner: "p", userId: 1, roomId: null, commands: ["Ping"], reason: "x", until: null }, 0),
    /cannot be vetoed/,
  );
  for (let i = v.size; i < MAX_VETOES; i++) {
    v.add({ owner: "p", userId: i, roomId: null, commands: [], reason: "x", until: null }, 0);
  }
  throws(() => v.add({ owner: "p", userId: 1, roomId: null, commands: [], reason: "x", until: null }, 0), /at most/);
});
