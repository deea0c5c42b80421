import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { RoomService } from "./room_service.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");

async function rig() {
  const dir = await Deno.makeTempDir({ prefix: "chorus-room-" });
  const clock = new ManualClock(T0);
  const service = new RoomService({
    logPath: `${dir}/server.log`,
    userInfoPath: `${dir}/out/user_info.json`,
    fromStart: true,
    pollMs: 100,
    staleRoomSecs: 3600,
    cleanupIntervalSecs: 60,
    clock,
    log: memoryLogHub().logger(),
  });
  const append = (lines: string[]) =>
    Deno.writeTextFile(`${dir}/server.log`, lines.join("\n") + "\n", { append: true });
  const get = async (path: string) => await (await service.app.request(path)).json();
  return { dir, clock, service, append, get };
}

Deno.test("room service: /rooms, /status, /health and /users/total from the followed log", async () => {
  const r = await rig();
  try {
    await r.service.start();
    deepEqual(await r.get("/status"), { room_count: 0, user_count: 0, last_activity: null, running: false });
    await r.append([
      "2026-01-01T00:00:10.000Z INFO  room created room=abc user=100 name=Alice host=100 state=SelectingChart cycle=false lock=false",
      "2026-01-01T00:00:11.000Z INFO  user joined room room=abc user=200 name=Bob",
      "2026-01-01T00:00:12.000Z INFO  room updated room=abc state=Playing chart=42",
    ]);
    await r.service.poll();
    deepEqual(await r.get("/rooms"), [{
      name: "abc",
      host_id: 100,
      host_name: "Alice",
      user_count: 2,
      user_names: ["Alice", "Bob"],
      users: [{ id: 100, name: "Alice" }, { id: 200, name: "Bob" }],
      created_at: T0 / 1000 + 10,
      last_activity: T0 / 1000 + 12,
      state: "进行中",
      state_code: "playing",
      cycle: false,
      lock: false,
      chart: 42,
      chart_id: 42,
      chart_name: null,
    }]);
    deepEqual(await r.get("/status"), { room_count: 1, user_count: 2, last_activity: T0 / 1000 + 12, running: true });
    deepEqual(await r.get("/health"), { status: "ok", timestamp: T0 / 1000 });
    deepEqual(await r.get("/users/total"), { total_users: 2, example_usernames: ["Alice", "Bob"] });
  } finally {
    await r.service.stop();
    await Deno.remove(r.dir, { recursive: true });
  }
});

Deno.test("room service writes user_info.json (indent 2) and reads it back at the next start", async () => {
  const r = await rig();
  try {
    await r.service.start();
    await r.append(['2026-01-01T00:00:10.000Z INFO  user joined room room=abc user=300 name="Carol \\"C\\""']);
    await r.service.poll();
    await r.service.flush();
    equal(await Deno.readTextFile(`${r.dir}/out/user_info.json`), '{\n  "300": "Carol \\"C\\""\n}\n');
    await r.service.stop();
    const again = new RoomService({
      logPath: `${r.dir}/server.log`,
      userInfoPath: `${r.dir}/out/user_info.json`,
      fromStart: false,
      pollMs: 100,
      staleRoomSecs: 3600,
      cleanupIntervalSecs: 60,
      clock: r.clock,
      log: memoryLogHub().logger(),
    });
    await again.start();
    deepEqual((await (await again.app.request("/users/total")).json()).example_usernames, ['Carol "C"']);
    await again.stop();
  } finally {
    await Deno.remove(r.dir, { recursive: true });
  }
});

Deno.test("room service removes rooms idle for an hour, checked every minute", async () => {
  const r = await rig();
  try {
    await r.service.start();
    await r.append([
      "2026-01-01T00:00:00.000Z INFO  room created room=old user=1 name=A",
      "2026-01-01T00:59:00.000Z INFO  room created room=fresh user=2 name=B",
    ]);
    await r.service.poll();
    r.clock.advance(60 * 60_000); // T0 + 1 h: "old" idle exactly 1 h — not over it yet
    deepEqual((await r.get("/rooms")).map((x: { name: string }) => x.name), ["old", "fresh"]);
    r.clock.advance(60_000); // the next check
    deepEqual((await r.get("/rooms")).map((x: { name: string }) => x.name), ["fresh"]);
  } finally {
    await r.service.stop();
    await Deno.remove(r.dir, { recursive: true });
  }
});
