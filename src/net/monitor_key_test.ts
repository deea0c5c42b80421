import { equal } from "node:assert/strict";
import { deepEqual } from "node:assert/strict";
import { bytesEqual, deriveKey, deriveKeys, monitorIkm, roomMonitorKey } from "./monitor_key.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

// Test vectors of extended.md §5.2 and protocol.md §3.5.
Deno.test("derivation matches the documented vectors for the debug secret", async () => {
  const secret = "some_random_secret_key_for_debugging";
  equal(hex(await monitorIkm(secret)), "08a09bbe515f346b8dbcde8eeb67f74ab6c5a777af295241e9977a7a69c3d0d3");
  equal(
    hex(await roomMonitorKey(secret)),
    "44b06038027559475c2eaa848b59a80ae73c3cbf02a0cc9a05aaf4de869a3875f3f6f7c6bc54c2fc7447ec0546157dd3e827cca774ef73963d455a97245460f0",
  );
  equal(
    hex(await deriveKey(secret, "jwt", 64)),
    "ddf44968924a96b6cab5cb9137ddb2043253bb88c346243239b35ee68812d1e3d595f3b2b4bcff03cdcb33b935ebbc6c9654a5d0dcc4aec3f2641e4fa956768e",
  );
});

Deno.test("derivation matches the documented vectors for dev_secret_local", async () => {
  const secret = "dev_secret_local";
  equal(hex(await monitorIkm(secret)), "6d44e33dbabe3a5ba0848f99695609ef7d19fa337bfda8159fe4c8b040cd4d9b");
  equal(
    hex(await roomMonitorKey(secret)),
    "97904217b668624f70bcf35e15b3a2d105ae32eb50cedf722a71592583dd9cc78795ba0c0b720e71a9d02ba0b878c6067ab5c15d8cf7e90dbd7fe0756f3066d7",
  );
});

Deno.test("deriveKeys gives the same keys as deriveKey, one Argon2id run for all", async () => {
  const secret = "dev_secret_local";
  const [monitor, jwt, node] = await deriveKeys(secret, [
    { info: "room_monitor", length: 64 },
    { info: "jwt", length: 64 },
    { info: "node_key", length: 32 },
  ]);
  deepEqual(monitor, await roomMonitorKey(secret));
  equal(
    hex(jwt!),
    "8a84551811d3e1f35f1b2d1e332b11d0091d3d70f45d3c6e90fdc940685e9d10e51d13d518b63968179ab1508652925396a5f31923f003a30e4c036a43c23ec4",
  );
  deepEqual(node, await deriveKey(secret, "node_key", 32));
});

Deno.test("bytesEqual compares contents and lengths", () => {
  equal(bytesEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
  equal(bytesEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])), false);
  equal(bytesEqual(new Uint8Array([1]), new Uint8Array([1, 2])), false);
});
