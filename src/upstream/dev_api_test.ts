import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { unzipSync } from "fflate";
import { ManualClock } from "../util/clock.ts";
import { devToken, parseDevEmail, parseDevToken } from "./dev_accounts.ts";
import { createDevApi, type DevApi } from "./dev_api.ts";
import { encodedDurationSecs } from "./dev_audio.ts";
import { deterministicRecord, DEV_UPLOAD_ID_BASE, devRecordId, parseDevRecordId } from "./dev_records.ts";
import { resolveRange } from "./dev_range.ts";
import { drive } from "./test_support.ts";

const BASE = "http://dev.invalid";

function get(api: DevApi, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return api.fetch(BASE + path, { headers });
}

function post(api: DevApi, path: string, body: unknown, token?: string): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  return api.fetch(BASE + path, { method: "POST", headers, body: JSON.stringify(body) });
}

Deno.test("devToken fits Varchar<32> and round-trips", () => {
  const longest = devToken(2147483647, "zh-Hant-TW");
  ok(new TextEncoder().encode(longest).length <= 32, longest);
  deepEqual(parseDevToken(longest), { id: 2147483647, language: "zh-Hant-TW" });
  deepEqual(parseDevToken(devToken(7)), { id: 7, language: "en-US" });
  equal(devToken(7), devToken(7));
  notEqual(devToken(7), devToken(8));
  for (const bad of ["", "dev.7.en-US.000000", "dev.0.en-US.abcdef", "garbage", devToken(7) + "x"]) {
    equal(parseDevToken(bad), null, bad);
  }
  for (const [id, lang] of [[0, "en-US"], [2 ** 31, "en-US"], [1, "a.b"], [1, "much-too-long-tag"]] as const) {
    let thrown: unknown;
    try {
      devToken(id, lang);
    } catch (e) {
      thrown = e;
    }
    ok(thrown instanceof RangeError, `${id} ${lang}`);
  }
});

Deno.test("dev API /me resolves tokens, registered users and rejects garbage", async () => {
  const api = createDevApi({ clock: new ManualClock() });
  const me = async (token: string) => {
    const res = await get(api, "/me", { authorization: `Bearer ${token}` });
    return { status: res.status, body: await res.json() };
  };
  const alice = await me(devToken(100));
  equal(alice.status, 200);
  equal(alice.body.name, "Alice");
  equal((await me(devToken(12345, "fr-FR"))).body.name, "Player12345");
  equal((await me(devToken(12345, "fr-FR"))).body.language, "fr-FR");
  const token = api.state.addUser({ id: 9, name: "Kenji", language: "ja-JP", token: "custom-token-for-kenji" });
  deepEqual((await me(token)).body.language, "ja-JP");
  equal((await me("custom-token-for-kenji")).body.name, "Kenji");
  equal((await me("garbage")).status, 401);
  equal((await get(api, "/me")).status, 401);
  const log = JSON.stringify(api.state.requests);
  ok(!log.includes("custom-token-for-kenji") && !log.includes(token));
  deepEqual(api.state.requests.map((r) => r.bearer), [true, true, true, true, true, true, false]);
});

Deno.test("dev API /login accepts deterministic and registered accounts", async () => {
  const api = createDevApi({ clock: new ManualClock() });
  equal(parseDevEmail("Alice@dev.local"), 100);
  const ok1 = await post(api, "/login", { email: "alice@dev.local", password: "password" });
  const body = await ok1.json();
  equal(body.id, 100);
  equal(body.token, devToken(100));
  equal(body.expireAt, "2026-01-31T00:00:00.000Z");
  equal((await post(api, "/login", { email: "user5@dev.local", password: "nope" })).status, 401);
  equal((await post(api, "/login", { email: "someone@else.org", password: "password" })).status, 401);
  equal((await post(api, "/login", { email: 5 })).status, 400);
  api.state.addUser({ id: 77, language: "ja-JP", email: "kai@example.org", password: "s3cret" });
  const kai = await (await post(api, "/login", { email: "kai@example.org", password: "s3cret" })).json();
  equal(kai.token, devToken(77, "ja-JP"));
  equal((await post(api, "/login", { email: "user77@dev.local", password: "password" })).status, 401);
});

Deno.test("dev API /chart serves ids 1..999999 deterministically and 404 otherwise", async () => {
  const api = createDevApi({ clock: new ManualClock() });
  const chart = await (await get(api, "/chart/123")).json();
  equal(chart.name, "Chart 123");
  equal(chart.file, `${BASE}/files/chart-123.zip`);
  for (const key of ["charter", "composer", "level", "difficulty", "updated", "chartUpdated", "rating"]) {
    ok(key in chart, key);
  }
  deepEqual(await (await get(createDevApi({ clock: new ManualClock() }), "/chart/123")).json(), chart);
  for (const id of ["0", "1000000", "-1", "abc", "99999999999"]) {
    equal((await get(api, `/chart/${id}`)).status, 404, id);
  }
  api.state.addChart({ id: 2_000_000, name: "Added" });
  equal((await (await get(api, "/chart/2000000")).json()).name, "Added");
  const pub = createDevApi({ clock: new ManualClock(), publicUrl: "https://cdn.example/" });
  equal((await (await get(pub, "/chart/1")).json()).file, "https://cdn.example/files/chart-1.zip");
});

Deno.test("dev API chart archives hold info.yml, chart.json and audio of the chart's duration", async (t) => {
  const api = createDevApi({ clock: new ManualClock() });
  for (const [id, format] of [[4, "wav"], [5, "flac"], [6, "ogg"], [7, "mp3"]] as const) {
    await t.step(`chart ${id}`, async () => {
      const res = await get(api, `/files/chart-${id}.zip`);
      equal(res.status, 200);
      equal(res.headers.get("accept-ranges"), "bytes");
      const zip = new Uint8Array(await res.arrayBuffer());
      const files = unzipSync(zip);
      deepEqual(Object.keys(files), ["info.yml", "chart.json", `music.${format}`]);
      const info = new TextDecoder().decode(files["info.yml"]);
      ok(info.includes(`music: music.${format}\n`), info);
      ok(info.includes("chart: chart.json\n"));
      ok(info.includes(`name: "${id === 7 ? "Lucky Seven" : `Chart ${id}`}"\n`), info);
      equal(JSON.parse(new TextDecoder().decode(files["chart.json"])).formatVersion, 3);
      const archive = api.state.archive(id)!;
      equal(archive.audio.format, format);
      equal(archive.audio.durationSecs, encodedDurationSecs({ format, durationSecs: 30 + id }));
      equal(zip[8], 8, "first entry deflated");
    });
  }
});

Deno.test("dev API archives can be stored, overridden and are byte-for-byte deterministic", async () => {
  const api = createDevApi({ clock: new ManualClock() });
  api.state.addChart({ id: 10, audio: { format: "flac", durationSecs: 12.5 }, compress: false });
  const zip = new Uint8Array(await (await get(api, "/files/chart-10.zip")).arrayBuffer());
  equal(zip[8], 0, "stored");
  const files = unzipSync(zip);
  ok(files["music.flac"]);
  equal(api.state.archive(10)!.audio.totalSamples, 12.5 * 44100);
  const again = createDevApi({ clock: new ManualClock() });
  again.state.addChart({ id: 10, audio: { format: "flac", durationSecs: 12.5 }, compress: false });
  deepEqual(again.state.archive(10)!.bytes, zip);
  equal((await get(api, "/files/chart-0.zip")).status, 404);
  equal((await get(api, "/files/other.bin")).status, 404);
});

Deno.test("dev API file server honours Range and HEAD", async () => {
  const api = createDevApi({ clock: new ManualClock() });
  const full = api.state.archive(3)!.bytes;
  const part = await get(api, "/files/chart-3.zip", { range: "bytes=4-7" });
  equal(part.status, 206);
  equal(part.headers.get("content-range"), `bytes 4-7/${full.length}`);
  deepEqual(new Uint8Array(await part.arrayBuffer()), full.slice(4, 8));
  const bad = await get(api, "/files/chart-3.zip", { range: `bytes=${full.length}-` });
  equal(bad.status, 416);
  equal(bad.headers.get("content-range"), `bytes */${full.length}`);
  await bad.body?.cancel();
  const head = await api.fetch(`${BASE}/files/chart-3.zip`, { method: "HEAD" });
  equal(head.status, 200);
  equal(head.headers.get("content-length"), String(full.length));
  api.state.ignoreRange = true;
  const ignored = await get(api, "/files/chart-3.zip", { range: "bytes=4-7" });
  equal(ignored.status, 200);
  equal(ignored.headers.get("accept-ranges"), "none");
  equal((await ignored.arrayBuffer()).byteLength, full.length);
});

Deno.test("resolveRange follows RFC 9110 single-range rules", () => {
  const cases: [string | null, number, ReturnType<typeof resolveRange>][] = [
    [null, 10, { kind: "full" }],
    ["bytes=0-3", 10, { kind: "partial", start: 0, end: 3 }],
    ["bytes=5-", 10, { kind: "partial", start: 5, end: 9 }],
    ["bytes=5-100", 10, { kind: "partial", start: 5, end: 9 }],
    ["bytes=-3", 10, { kind: "partial", start: 7, end: 9 }],
    ["bytes=-30", 10, { kind: "partial", start: 0, end: 9 }],
    ["bytes=10-", 10, { kind: "unsatisfiable" }],
    ["bytes=-0", 10, { kind: "unsatisfiable" }],
    ["bytes=-1", 0, { kind: "unsatisfiable" }],
    ["bytes=4-2", 10, { kind: "full" }],
    ["bytes=0-1,4-5", 10, { kind: "full" }],
    ["lines=1-2", 10, { kind: "full" }],
  ];
  for (const [header, size, want] of cases) deepEqual(resolveRange(header, size), want, `${header} of ${size}`);
});

Deno.test("dev records encode the player in the id", async () => {
  equal(devRecordId(100, 1), 100001);
  deepEqual(parseDevRecordId(100001), { player: 100, n: 1 });
  equal(parseDevRecordId(100000), null);
  equal(parseDevRecordId(999), null);
  equal(parseDevRecordId(DEV_UPLOAD_ID_BASE), null);
  const ap = deterministicRecord(devRecordId(100, 1))!;
  equal(ap.score, 1_000_000);
  equal(ap.full_combo, true);
  const fc = deterministicRecord(devRecordId(100, 2))!;
  ok(fc.full_combo && fc.good > 0 && fc.score < 1_000_000);
  const rough = deterministicRecord(devRecordId(100, 3))!;
  ok(!rough.full_combo && rough.miss > 0);
  equal(deterministicRecord(devRecordId(100, 20))!.std, null);
  for (let n = 1; n < 999; n += 37) {
    const r = deterministicRecord(devRecordId(424242, n))!;
    equal(r.player, 424242);
    equal(r.perfect + r.good + r.bad + r.miss > 0, true);
    ok(r.accuracy >= 0 && r.accuracy <= 1 && r.max_combo <= r.perfect + r.good + r.bad + r.miss);
    ok(Number.isInteger(r.score) && r.score <= 1_000_000);
  }
  const api = createDevApi({ clock: new ManualClock() });
  equal((await get(api, "/record/100000")).status, 404);
  equal((await (await get(api, "/record/200005")).json()).player, 200);
});

Deno.test("dev API /play/upload stores a record for the token's user", async () => {
  const api = createDevApi({ clock: new ManualClock() });
  const res = await post(api, "/play/upload", { score: 987654, accuracy: 0.98, perfect: 90, good: 10 }, devToken(300));
  const { id } = await res.json();
  ok(id >= DEV_UPLOAD_ID_BASE && id <= 2147483647);
  const r = await (await get(api, `/record/${id}`)).json();
  equal(r.player, 300);
  equal(r.score, 987654);
  equal(r.max_combo, 100);
  equal(r.full_combo, true);
  equal(r.std, null);
  const empty = await (await post(api, "/play/upload", {}, devToken(300))).json();
  equal(api.state.record(empty.id)!.score, 1_000_000);
  equal((await post(api, "/play/upload", {})).status, 401);
  equal((await post(api, "/play/upload", { accuracy: 2 }, devToken(300))).status, 400);
  const added = api.state.addRecord({ player: 5, std: null, std_score: null, score: 12 });
  equal(added.id, empty.id + 1);
  equal(api.state.record(added.id)!.score, 12);
});

Deno.test("dev API faults apply a limited number of times, with delays on the injected clock", async () => {
  const clock = new ManualClock();
  const api = createDevApi({ clock });
  api.state.setFault("chart", { status: 503, times: 2 });
  deepEqual(
    await Promise.all([1, 2, 3].map(async (i) => (await get(api, `/chart/${i}`)).status)),
    [503, 503, 200],
  );
  api.state.setFault("me", { delayMs: 1000, times: 1 });
  const res = await drive(clock, get(api, "/me", { authorization: `Bearer ${devToken(1)}` }), 100);
  equal(res.status, 200);
  ok(clock.monotonic() >= 1000);
  let seen = 0;
  api.state.setFault("record", {
    hook: () => {
      seen++;
      return undefined;
    },
  });
  equal((await get(api, "/record/1001")).status, 200);
  equal(seen, 1);
  api.state.clearFaults();
  equal((await get(api, "/chart/1")).status, 200);
});
