/**
 * The proxy's share of the room-stream fan-out: one room event framed once
 * and handed to N subscribers' queues, every subscriber's body read back
 * (the bytes an HTTP connection would write), no sockets. Run with
 * `deno task bench src/proxy/fanout_bench.ts`; figures in BENCHMARKS.md.
 */
import { ManualClock } from "../util/clock.ts";
import { Fanout } from "./fanout.ts";
import type { RoomStreamEvent } from "./room_cache.ts";

const event: RoomStreamEvent = {
  name: "create_room",
  data: {
    room: "room-1234",
    data: { host: 100, users: [100], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
  },
};

async function rig(n: number) {
  const fanout = new Fanout({ clock: new ManualClock(), maxSubscribers: n });
  const readers = Array.from({ length: n }, () => fanout.open([])!.getReader());
  // The first chunk (retry) of every stream.
  await Promise.all(readers.map((r) => r.read()));
  return { fanout, readers };
}

for (const n of [1, 100, 1000]) {
  const { fanout, readers } = await rig(n);
  Deno.bench(`publish one event to ${n} subscribers and read it from each`, { group: "fanout" }, async () => {
    fanout.publish([event]);
    await Promise.all(readers.map((r) => r.read()));
  });
}
