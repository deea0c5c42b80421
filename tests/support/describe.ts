/**
 * Compact, readable renderings of server commands for order assertions in
 * scenario tests, and a helper that waits for a client's log to reach a length.
 *
 * @module
 */

import { deepEqual } from "node:assert/strict";
import type { PhiraClient } from "../../src/client/mod.ts";
import type { ServerCommand } from "../../src/protocol/mod.ts";
import { settle } from "./harness.ts";

/** One line per command, e.g. `Message.JoinRoom{user:200,name:Bob}`, `JoinRoom(Ok)`, `ChangeState(SelectChart:7)`. */
export function describe(cmd: ServerCommand): string {
  switch (cmd.type) {
    case "Message": {
      const { type, ...fields } = cmd.message;
      const body = Object.entries(fields).map(([k, v]) =>
        `${k}:${typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v}`
      );
      return `Message.${type}${body.length ? `{${body.join(",")}}` : ""}`;
    }
    case "ChangeState":
      return `ChangeState(${cmd.state.type}${cmd.state.type === "SelectChart" ? `:${cmd.state.chart}` : ""})`;
    case "ChangeHost":
      return `ChangeHost(${cmd.is_host})`;
    case "OnJoinRoom":
      return `OnJoinRoom(${cmd.user.id}${cmd.user.monitor ? ",monitor" : ""})`;
    case "Touches":
    case "Judges":
      return `${cmd.type}(${cmd.player})`;
    case "Pong":
      return "Pong";
    case "RoomEvent":
      return `RoomEvent.${cmd.event.type}`;
    case "UserVisit":
      return `UserVisit(${cmd.user})`;
    default: {
      const result = (cmd as { result: { ok: boolean; error?: string } }).result;
      return `${cmd.type}(${result.ok ? "Ok" : `Err:${result.error}`})`;
    }
  }
}

/** Waits (for I/O, up to `timeoutMs` of real time) until `cond()` holds. */
export async function waitUntil(cond: () => boolean, what = "condition", timeoutMs = 3000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await settle(1);
  }
}

/** The client's log so far, rendered; from index `from`. */
export function log(client: PhiraClient, from = 0): string[] {
  return client.received.slice(from).map(describe);
}

/**
 * Waits for the client to have received `expected.length` more commands
 * since `from`, then asserts they are exactly `expected`, and that nothing
 * else arrives within a few more I/O turns.
 */
export async function expectLog(client: PhiraClient, expected: string[], from = 0): Promise<void> {
  await waitUntil(() => client.received.length - from >= expected.length, `${expected.length} commands`).catch(
    () => {},
  );
  await settle(3);
  deepEqual(log(client, from), expected);
}

/** A marker to take before an action: the index where the action's log starts. */
export function mark(client: PhiraClient): number {
  return client.received.length;
}
