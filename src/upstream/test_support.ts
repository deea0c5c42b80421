/**
 * Test helpers for the upstream folder: driving a {@link ManualClock} until a
 * promise settles, and a client wired to an in-process development API.
 *
 * @module
 */

import { ManualClock } from "../util/clock.ts";
import { SeededRandom } from "../util/random.ts";
import { Upstream, type UpstreamOptions } from "./client.ts";
import { createDevApi, type DevApi, type DevApiOptions } from "./dev_api.ts";

/** Lets pending promise callbacks and macrotasks run (no time passes on the manual clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Advances `clock` in `stepMs` steps until `p` settles (or `limitMs` passed), then returns `p`. */
export async function drive<T>(clock: ManualClock, p: Promise<T>, stepMs = 50, limitMs = 120_000): Promise<T> {
  let settled = false;
  p.then(() => (settled = true), () => (settled = true));
  await flush();
  for (let t = 0; t < limitMs && !settled; t += stepMs) {
    clock.advance(stepMs);
    await flush();
  }
  return await p;
}

/** A dev API and a client talking to it in-process, on one manual clock. */
export interface Rig {
  clock: ManualClock;
  api: DevApi;
  up: Upstream;
}

/** Builds a {@link Rig}; the client's base URL is `http://dev.invalid`. */
export function rig(o: { api?: DevApiOptions; up?: Partial<UpstreamOptions> } = {}): Rig {
  const clock = new ManualClock();
  const api = createDevApi({ clock, ...o.api });
  const up = new Upstream({
    baseUrl: "http://dev.invalid",
    fetch: api.fetch,
    clock,
    random: new SeededRandom(7),
    ...o.up,
  });
  return { clock, api, up };
}

/** The rejection of `p` (fails the test when `p` resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}
