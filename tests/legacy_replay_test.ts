/**
 * Replays of legacy mode end to end (spec 3 §4.7; tphira's `.phirarec`):
 * a round played by two clients over TCP is recorded one file per player
 * under `data_dir/record/<user>/<chart>/<ms>.phirarec`, read back here by a
 * parser written in this test (not the server's), and its entries are the
 * exact bytes the clients sent: the golden frames of the protocol notes sent
 * raw, and frames the client encoded. Then the HTTP flow: auth against the
 * game API, download of one's own files only, delete, retention.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { encodeClientCommand, type JudgeEvent, type TouchFrame } from "../src/protocol/mod.ts";
import { devToken } from "../src/upstream/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { jsonOf, startLegacy } from "./support/legacy.ts";
import { ReplayRecorder } from "../legacy/recorder.ts";

const hex = (s: string) => Uint8Array.from(s.split(" ").map((b) => parseInt(b, 16)));
// protocol notes §4 golden vectors #5 and #6, complete frames (length prefix first).
const GOLDEN_TOUCHES = hex("11 03 01 00 00 c0 3f 02 00 00 38 00 b4 ff 00 3c 00 3a");
const GOLDEN_JUDGES = hex("0f 04 01 00 00 00 40 03 00 00 00 07 00 00 00 01");

/** A frame's payload: the bytes after its LEB128 length prefix. */
function payloadOf(frame: Uint8Array): number[] {
  let i = 0;
  while (frame[i]! & 0x80) i++;
  return [...frame.subarray(i + 1)];
}

/** An independent reader of the tphira `.phirarec` layout. */
function readPhirarec(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  equal(view.getUint16(0, true), 0x504d, "magic");
  const header = { chart: view.getUint32(2, true), user: view.getUint32(6, true), record: view.getUint32(10, true) };
  const entries: number[][] = [];
  for (let at = 14; at < bytes.length;) {
    const n = view.getUint32(at, true);
    entries.push([...bytes.subarray(at + 4, at + 4 + n)]);
    at += 4 + n;
  }
  return { header, entries };
}

const TF: TouchFrame[] = [{ time: 2.25, points: [[1, { x: 0.125, y: 0.5 }]] }];
const JE: JudgeEvent[] = [{ time: 3.5, line_id: 1, note_id: 2, judgement: "Perfect" }];

Deno.test("legacy replays: a played round is recorded byte for byte, then listed, downloaded, deleted and swept", async () => {
  const t = await startLegacy({ config: { replay_enabled: true } });
  try {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    await alice.createRoom("rec");
    // The creator is told a monitor (the recorder) joined: the client's live flag, without which it sends nothing.
    await waitUntil(() => alice.received.some((c) => c.type === "OnJoinRoom" && c.user.monitor), "recorder notice");
    ok(t.h.server.core.rooms.get("rec")!.live);
    equal((await bob.joinRoom("rec")).live, true);
    await alice.selectChart(7);
    await alice.requestStart();
    await bob.ready();
    const startedAt = t.h.clock.now();
    await t.settle();
    await t.mode.recorder.idle();
    equal(t.mode.recorder.status().recording, 2);

    alice.sendRaw(GOLDEN_TOUCHES);
    bob.sendRaw(GOLDEN_JUDGES);
    alice.touches(TF);
    alice.judges(JE);
    await alice.chat("sync");
    await bob.chat("sync");
    const aliceRecord = t.h.dev.state.addRecord({ player: 100, score: 987654 }).id;
    const bobRecord = t.h.dev.state.addRecord({ player: 200, score: 123456 }).id;
    await alice.played(aliceRecord);
    await bob.played(bobRecord);
    await t.settle();
    await t.mode.recorder.idle();
    equal(t.mode.recorder.status().recording, 0, "files closed when the round settled");

    const file = (user: number) => join(t.dir, "data", "record", String(user), "7", `${startedAt}.phirarec`);
    const a = readPhirarec(await Deno.readFile(file(100)));
    deepEqual(a.header, { chart: 7, user: 100, record: aliceRecord });
    deepEqual(a.entries, [
      payloadOf(GOLDEN_TOUCHES),
      payloadOf(encodeClientCommand({ type: "Touches", frames: TF })),
      payloadOf(encodeClientCommand({ type: "Judges", judges: JE })),
    ]);
    const b = readPhirarec(await Deno.readFile(file(200)));
    deepEqual(b.header, { chart: 7, user: 200, record: bobRecord });
    deepEqual(b.entries, [payloadOf(GOLDEN_JUDGES)]);

    // The HTTP flow: the Phira token is checked upstream; only the caller's own files are reachable.
    deepEqual(await jsonOf(await t.fetch("/replay/auth", { method: "POST", body: "{}" })), {
      status: 400,
      body: { ok: false, error: "bad-token" },
    });
    deepEqual(
      (await jsonOf(
        await t.fetch("/replay/auth", { method: "POST", body: JSON.stringify({ token: "not-a-dev-token" }) }),
      )).status,
      401,
    );
    const auth = await jsonOf(
      await t.fetch("/replay/auth", { method: "POST", body: JSON.stringify({ token: devToken(200) }) }),
    );
    equal(auth.status, 200);
    const size = (await Deno.stat(file(200))).size;
    deepEqual(auth.body.charts, [{
      chartId: 7,
      replays: [{ id: `7-${startedAt}`, timestamp: startedAt, recordId: bobRecord, size }],
    }]);
    equal(auth.body.expiresAt, t.h.clock.now() + 30 * 60_000);
    const session = String(auth.body.sessionToken);
    const download = await t.fetch(`/replay/download?sessionToken=${session}&chartId=7&timestamp=${startedAt}`);
    equal(download.status, 200);
    equal(download.headers.get("content-type"), "application/octet-stream");
    deepEqual(new Uint8Array(await download.arrayBuffer()), await Deno.readFile(file(200)));
    const specStyle = await t.fetch(`/replay/download?token=${session}&id=7-${startedAt}`);
    deepEqual(new Uint8Array(await specStyle.arrayBuffer()), await Deno.readFile(file(200)));
    equal((await t.fetch(`/replay/download?token=nope&id=7-${startedAt}`)).status, 401);
    equal((await t.fetch(`/replay/download?token=${session}&id=../../100/7`)).status, 400);
    equal((await t.fetch(`/replay/download?token=${session}&chartId=7&timestamp=1`)).status, 404);
    // Alice's file exists, but Bob's session cannot reach it: his own folder has no such name.
    const other = await t.fetch(`/replay/download?token=${session}&chartId=7&timestamp=${startedAt}&user=100`);
    deepEqual(new Uint8Array(await other.arrayBuffer()), await Deno.readFile(file(200)));
    deepEqual(
      await jsonOf(
        await t.fetch("/replay/delete", {
          method: "POST",
          body: JSON.stringify({ sessionToken: session, chartId: 7, timestamp: startedAt }),
        }),
      ),
      { status: 200, body: { ok: true } },
    );
    equal((await t.fetch(`/replay/download?token=${session}&id=7-${startedAt}`)).status, 404);
    await t.h.advance(30 * 60_000);
    equal(
      (await t.fetch(`/replay/download?token=${session}&id=7-${startedAt}`)).status,
      401,
      "sessions last 30 minutes",
    );

    // Retention: 4 days by the time in the file name. A recorder of the durable store (which writes these files as
    // its telemetry) also has the store forget the files' index rows.
    await t.h.advance(4 * 86_400_000);
    const forgotten: string[] = [];
    const storeRecorder = new ReplayRecorder(t.mode.ctx, {
      forgetTelemetryFiles: (paths) => Promise.resolve(forgotten.push(...paths)),
    });
    equal(await storeRecorder.sweep(), 1);
    deepEqual(forgotten, [`100/7/${startedAt}.phirarec`]);
    equal(await Deno.stat(file(100)).then(() => true, () => false), false);
    equal(await t.mode.recorder.sweep(), 0, "nothing left to sweep");

    // Switched off: new rooms are not recorded (not made live).
    await t.console("replay off");
    const carol = await t.h.login(300);
    await carol.createRoom("plain");
    await t.settle();
    equal(t.h.server.core.rooms.get("plain")!.live, false);
  } finally {
    await t.close();
  }
});
