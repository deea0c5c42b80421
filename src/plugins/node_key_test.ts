import { deepEqual, equal, notDeepEqual, rejects } from "node:assert/strict";
import { NodeKey, sha256 } from "./node_key.ts";

Deno.test("the node key is derived from the service secret and signs with Ed25519", async () => {
  const a = await NodeKey.fromSecret("correct horse battery staple");
  const b = await NodeKey.fromSecret("correct horse battery staple");
  const other = await NodeKey.fromSecret("another secret");
  deepEqual(a.publicKey, b.publicKey);
  notDeepEqual(a.publicKey, other.publicKey);
  equal(a.publicKey.length, 32);
  const payload = new TextEncoder().encode("round 7: 990000");
  const signature = await a.sign(payload);
  equal(signature.length, 64);
  equal(await NodeKey.verify(a.publicKey, payload, signature), true);
  equal(await NodeKey.verify(other.publicKey, payload, signature), false);
  equal(await NodeKey.verify(a.publicKey, new TextEncoder().encode("tampered"), signature), false);
  equal(await NodeKey.verify(a.publicKey, payload, signature.slice(1)), false);
  await rejects(NodeKey.verify(new Uint8Array(5), payload, signature), /5 bytes, not 32/);
});

Deno.test("sha256 is SHA-256", async () => {
  const hex = [...await sha256(new TextEncoder().encode("abc"))].map((x) => x.toString(16).padStart(2, "0")).join("");
  equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});
