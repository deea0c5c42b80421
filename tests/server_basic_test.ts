import { deepEqual, equal } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { startHarness } from "./support/harness.ts";

Deno.test("login answers Authenticate(Ok) with the user and no room", async () => {
  const h = await startHarness();
  const client = await h.connect();
  const { user, room } = await client.authenticate((await import("./support/harness.ts")).devToken(100));
  deepEqual(user, { id: 100, name: "Alice", monitor: false });
  equal(room, null);
  await h.close();
});

Deno.test("create, join, chat over TCP with exact message order", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await bob.chat("hi");
  await assertRejectsWithReason(bob.createRoom("x"), "already in room");
  await alice.waitForMessage("Chat");
  deepEqual(alice.received.map((c) => c.type === "Message" ? `Message.${c.message.type}` : c.type), [
    "Authenticate",
    "Message.CreateRoom",
    "CreateRoom",
    "OnJoinRoom",
    "Message.JoinRoom",
    "Message.Chat",
  ]);
  await h.close();
});
