import assert from "node:assert/strict";
import { Hono } from "hono";
import { limitBody } from "./body_limit.ts";

function app() {
  const a = new Hono();
  a.use("*", limitBody(8, (c) => c.json({ error: "too large" }, 413)));
  a.post("/echo", async (c) => c.json({ text: await c.req.text(), length: c.req.header("content-length") ?? null }));
  a.on("OPTIONS", "/echo", (c) => c.body(null, 204));
  return a;
}

/** A body of unknown length (chunked), as a client streaming it sends it. */
function stream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(ctrl) {
      for (const b of bytes) ctrl.enqueue(new Uint8Array([b]));
      ctrl.close();
    },
  });
}

Deno.test("limitBody: bodies of known length are checked by their header, others buffered up to the limit", async () => {
  const a = app();
  const known = await a.request("/echo", { method: "POST", body: "12345678" });
  assert.deepEqual(await known.json(), { text: "12345678", length: "8" });
  const over = await a.request("/echo", { method: "POST", body: "123456789" });
  assert.equal(over.status, 413);
  const chunked = await a.request(
    new Request("http://x/echo", {
      method: "POST",
      body: stream("abcdefgh"),
      headers: { "transfer-encoding": "chunked" },
    }),
  );
  assert.deepEqual(await chunked.json(), { text: "abcdefgh", length: "8" }, "buffered, with its length now known");
  const chunkedOver = await a.request(new Request("http://x/echo", { method: "POST", body: stream("abcdefghi") }));
  assert.equal(chunkedOver.status, 413);
  const empty = await a.request(new Request("http://x/echo", { method: "OPTIONS", body: stream("") }));
  assert.equal(empty.status, 204);
});
