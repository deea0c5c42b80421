/**
 * Assertions for tests that drive a {@link PhiraClient}.
 *
 * @module
 */

import { deepEqual, fail } from "node:assert/strict";
import { ClientError } from "./errors.ts";
import type { Violation } from "./types.ts";

/**
 * Asserts that `promise` rejects with the server's `Err` reply whose string
 * is exactly `reason`, and returns that error.
 */
export async function assertRejectsWithReason(promise: Promise<unknown>, reason: string): Promise<ClientError> {
  try {
    await promise;
  } catch (e) {
    if (!(e instanceof ClientError) || e.code !== "rejected") {
      fail(`Expected an Err(${JSON.stringify(reason)}) reply, got: ${e instanceof Error ? e.message : String(e)}`);
    }
    deepEqual(e.reason, reason, `Expected Err(${JSON.stringify(reason)}), got Err(${JSON.stringify(e.reason)})`);
    return e;
  }
  fail(`Expected an Err(${JSON.stringify(reason)}) reply, but the request succeeded`);
}

/** Asserts that no client saw anything the official client would have crashed on. */
export function assertNoViolations(...clients: { readonly violations: readonly Violation[] }[]): void {
  const found = clients.flatMap((c, i) => c.violations.map((v) => `client ${i}: #${v.seq} ${v.kind}: ${v.detail}`));
  deepEqual(found, [], `Protocol violations:\n${found.join("\n")}`);
}
