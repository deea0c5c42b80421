import { deepEqual, equal, rejects } from "node:assert/strict";
import { ExtensionStore, MAX_KEY } from "./ext_store.ts";

Deno.test("extension data: per user, room and server, persisted, dropped with a room", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await ExtensionStore.open(`${dir}/extensions.json`);
    await store.set("user", "5", "rank", "gold");
    await store.set("room", "lobby", "theme", "dark");
    await store.set("global", "", "motd", "hi");
    equal(store.get("user", "5", "rank"), "gold");
    deepEqual(store.summary(), { users: 1, rooms: 1, global: 1, values: 3, keys: ["motd", "rank", "theme"] });
    await store.flush();
    const again = await ExtensionStore.open(`${dir}/extensions.json`);
    deepEqual(again.entries("room", "lobby"), { theme: "dark" });
    await again.drop("room", "lobby");
    equal(again.get("room", "lobby", "theme"), null);
    await again.set("user", "5", "rank", null);
    equal(again.summary().values, 1);
    await rejects(again.set("user", "5", "k".repeat(MAX_KEY + 1), "v"), RangeError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
