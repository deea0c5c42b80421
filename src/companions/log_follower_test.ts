import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { LogFollower } from "./log_follower.ts";

async function rig(o: { fromStart?: boolean; maxLineBytes?: number } = {}) {
  const dir = await Deno.makeTempDir({ prefix: "chorus-follow-" });
  const path = `${dir}/server.log`;
  const lines: string[] = [];
  const follower = new LogFollower({
    path,
    clock: new ManualClock(),
    log: memoryLogHub().logger(),
    onLine: (l) => lines.push(l),
    ...o,
  });
  const append = (text: string) => Deno.writeTextFile(path, text, { append: true });
  return { dir, path, lines, follower, append, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("log follower starts at the end, then reads appended lines, holding a partial line until it ends", async () => {
  await using r = await rig();
  await r.append("old line\n");
  await r.follower.poll();
  equal(r.follower.attached, true);
  deepEqual(r.lines, []);
  await r.append("first\nsec");
  await r.follower.poll();
  deepEqual(r.lines, ["first"]);
  await r.append("ond\r\nthird\n");
  await r.follower.poll();
  deepEqual(r.lines, ["first", "second", "third"]);
  await r.follower.stop();
});

Deno.test("log follower waits for a missing file and reads it from the start once it appears", async () => {
  await using r = await rig();
  await r.follower.poll();
  equal(r.follower.attached, false);
  await r.append("hello\n");
  await r.follower.poll();
  deepEqual(r.lines, ["hello"], "a file that appears later is new: read whole");
  await r.follower.stop();
});

Deno.test("log follower survives rotation: the old file to its end, then the new one from its start", async () => {
  await using r = await rig({ fromStart: true });
  await r.append("a1\n");
  await r.follower.poll();
  await r.append("a2\na3-no-newline");
  await Deno.rename(r.path, `${r.path}.1`);
  await r.follower.poll(); // the path is gone: the old file is still read
  deepEqual(r.lines, ["a1", "a2"]);
  await r.append("b1\n");
  await r.follower.poll();
  deepEqual(r.lines, ["a1", "a2", "a3-no-newline", "b1"]);
  await r.follower.stop();
});

Deno.test("log follower survives truncation (copytruncate) by reading again from the start", async () => {
  await using r = await rig({ fromStart: true });
  await r.append("one\ntwo\nthree\n");
  await r.follower.poll();
  await Deno.writeTextFile(r.path, "x\n");
  await r.follower.poll();
  deepEqual(r.lines, ["one", "two", "three", "x"]);
  await r.follower.stop();
});

Deno.test("log follower skips a line over the limit and goes on with the next", async () => {
  await using r = await rig({ fromStart: true, maxLineBytes: 16 });
  await r.append("short\n" + "y".repeat(40));
  await r.follower.poll();
  await r.append("z".repeat(40) + "\nafter\n");
  await r.follower.poll();
  deepEqual(r.lines, ["short", "after"]);
  await r.follower.stop();
});

Deno.test("log follower polls on the clock once started", async () => {
  await using r = await rig({ fromStart: true });
  const clock = new ManualClock();
  const lines: string[] = [];
  const f = new LogFollower({
    path: r.path,
    clock,
    log: memoryLogHub().logger(),
    onLine: (l) => lines.push(l),
    pollMs: 100,
    fromStart: true,
  });
  await r.append("tick\n");
  f.start();
  for (let i = 0; i < 50 && lines.length === 0; i++) {
    clock.advance(100);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  deepEqual(lines, ["tick"]);
  await f.stop();
});
