import { equal, ok } from "node:assert/strict";
import type { PhiraClient } from "../client/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { PingDriver } from "./pinger.ts";

/** A stand-in client whose pings the test answers by hand. */
class FakeClient {
  isClosed = false;
  pings = 0;
  pending: ((rtt: number) => void)[] = [];
  ping(timeoutMs: number): Promise<number> {
    equal(timeoutMs, Infinity, "pings carry no per-ping timer");
    this.pings++;
    return new Promise((resolve) => this.pending.push(resolve));
  }
  answer(rtt: number): void {
    for (const r of this.pending.splice(0)) r(rtt);
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("PingDriver pings each client once per interval, round robin, never two at once", async () => {
  const clock = new ManualClock();
  const rtts: number[] = [];
  const driver = new PingDriver(clock, { intervalMs: 300, timeoutMs: 200, onRtt: (ms) => rtts.push(ms) });
  const clients = [new FakeClient(), new FakeClient(), new FakeClient()];
  for (const c of clients) driver.add(c as unknown as PhiraClient);
  driver.start();
  for (let t = 0; t < 300; t += 10) {
    clock.advance(10);
    for (const c of clients) c.answer(1);
    await flush();
  }
  for (const c of clients) equal(c.pings, 1);
  equal(rtts.length, 3);
  // Unanswered pings are not repeated, and count as timed out after 200 ms (seen on the next turn).
  for (let t = 0; t < 900; t += 10) {
    clock.advance(10);
    await flush();
  }
  for (const c of clients) equal(c.pings, 2);
  equal(driver.timeouts, 3);
  // A late Pong still reports its round trip and frees the client for the next ping.
  clients[0]!.answer(950);
  await flush();
  equal(rtts.at(-1), 950);
  clients[1]!.isClosed = true;
  for (let t = 0; t < 600; t += 10) {
    clock.advance(10);
    await flush();
  }
  equal(driver.size, 2);
  ok(clients[0]!.pings >= 3);
  driver.stop();
  equal(clock.pending, 0);
});
