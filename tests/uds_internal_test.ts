/**
 * OpenUDS responses over the frame limit (spec 3 §8; docs/openuds.md
 * "Framing"): a command whose response would not fit in 16 MiB gets an
 * `INTERNAL` error response with its own id instead, nothing over the limit
 * is written, and the connection goes on serving requests.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { MAX_FRAME_BYTES } from "../src/uds/mod.ts";
import { startUdsHarness } from "./support/uds.ts";

Deno.test("openuds: a response over 16 MiB becomes an INTERNAL error and the connection stays usable", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  // logs.history returns each record's message twice (msg and the formatted line): one record of 9 MiB makes the
  // response about 18 MiB, over the limit, with no other setup.
  u.c.h.logs.logger().warn("x".repeat(9 * 1024 * 1024));
  const big = await a.request("logs.history", { limit: 1 });
  equal(big.ok, false);
  equal(big.id, "r1");
  equal(big.data, undefined);
  const error = big.error as { code: string; message: string };
  equal(error.code, "INTERNAL");
  match(error.message, new RegExp(`^Cannot send frame: \\d+ bytes is over the ${MAX_FRAME_BYTES} byte limit$`));
  const size = Number(/(\d+) bytes/.exec(error.message)?.[1]);
  ok(size > MAX_FRAME_BYTES && size < 2 * MAX_FRAME_BYTES, `reported size ${size}`);

  // The same connection keeps working: control frames, and the same command once its answer fits again.
  await a.send({ type: "ping", id: 7 });
  deepEqual(await a.next((f) => f.type === "pong"), { type: "pong", id: 7 });
  u.c.h.logs.logger().info("small again");
  const small = await a.ok("logs.history", { limit: 1 }) as { count: number; entries: { msg: string }[] };
  equal(small.count, 1);
  equal(small.entries[0]?.msg, "small again");
  equal(u.uds.connections, 1, "the client was not disconnected");
  await u.close();
});
