import { deepEqual, equal } from "node:assert/strict";
import type { ServerCommand } from "../protocol/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { ClientError } from "./errors.ts";
import { PendingReplies, type PendingRequest } from "./pending.ts";

function entry(log: string[], name: string): PendingRequest {
  return {
    request: { type: "Ready" },
    sentAt: 0,
    auto: false,
    state: "waiting",
    timer: undefined,
    resolve: (reply: ServerCommand) => log.push(`${name} <- ${reply.type}`),
    reject: (e: Error) => log.push(`${name} !! ${(e as ClientError).code}`),
  };
}

Deno.test("PendingReplies keeps timed-out requests as tombstones, in order", () => {
  const clock = new ManualClock();
  const pending = new PendingReplies(clock);
  const log: string[] = [];
  const timeout = () => new ClientError("timeout", "ready", "slow");
  pending.add("Ready", entry(log, "a"), 10, timeout);
  pending.add("Ready", entry(log, "b"), 20, timeout);
  clock.advance(10);
  equal(pending.size, 1);
  equal(pending.take("Ready")?.state, "timed-out");
  const b = pending.take("Ready")!;
  equal(b.state, "done");
  equal(pending.take("Ready"), undefined);
  clock.advance(100);
  deepEqual(log, ["a !! timeout"]);
  equal(clock.pending, 0);
});

Deno.test("PendingReplies rejects every waiting request on close and clears timers", () => {
  const clock = new ManualClock();
  const pending = new PendingReplies(clock);
  const log: string[] = [];
  pending.add("Ready", entry(log, "a"), 10, () => new ClientError("timeout", "ready", "slow"));
  pending.add("Chat", entry(log, "b"), Infinity, () => new ClientError("timeout", "chat", "slow"));
  pending.rejectAll(() => new ClientError("closed", "x", "closed"));
  deepEqual(log, ["a !! closed", "b !! closed"]);
  equal(pending.size, 0);
  equal(clock.pending, 0);
});
