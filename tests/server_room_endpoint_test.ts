/**
 * A room's upstream endpoint override (spec 3 §2.1 control field
 * `game_api_endpoint`; console `room set <id> api_endpoint`, OpenUDS
 * `room.create {endpoint}`, the admin facade) over real TCP and two
 * development upstreams on loopback: the room's chart lookup
 * (`/chart/{id}` on SelectChart), record fetch (`/record/{id}` on Played)
 * and chart-archive probe (`/files/…`) go to the override, never to the
 * server's default, while logins (`/me`) stay on the default.
 */
import { deepEqual, equal, match, notEqual } from "node:assert/strict";
import { resolveChartDuration } from "../src/chart/mod.ts";
import type { PhiraClient } from "../src/client/mod.ts";
import type { ChartDurationResolver } from "../src/server/context.ts";
import { Admin } from "../src/server/mod.ts";
import { type DevApiServer, type DevEndpoint, serveDevApi, Upstream, type UpstreamChart } from "../src/upstream/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { SeededRandom } from "../src/util/random.ts";
import { mark, waitUntil } from "./support/describe.ts";
import { startUdsHarness } from "./support/uds.ts";

const QUIET = { heartbeat_timeout: 86_400 };
/** Chart 7 exists on both upstreams; the override serves it under another name and length. */
const CHART = 7;
/** A record id (player 100, play 9) both upstreams answer, with different scores. */
const RECORD = 100009;
const OVERRIDE_SCORE = 424242;

/** Requests per endpoint that an upstream received since `from`. */
function counts(dev: DevApiServer, from = 0): Partial<Record<DevEndpoint, number>> {
  const out: Partial<Record<DevEndpoint, number>> = {};
  for (const r of dev.api.state.requests.slice(from)) if (r.endpoint) out[r.endpoint] = (out[r.endpoint] ?? 0) + 1;
  return out;
}

/** The `Message.SelectChart` broadcasts `client` received since `from`. */
function selections(client: PhiraClient, from: number): unknown[] {
  return client.received.slice(from).flatMap((m) =>
    m.type === "Message" && m.message.type === "SelectChart" ? [m.message] : []
  );
}

/** The probe as `src/app.ts` wires it: metadata the selection fetched, else `/chart/{id}`, then the archive. */
function prober(clock: () => ManualClock): ChartDurationResolver {
  return async (chartId, upstream, meta) => {
    const chart = meta && "file" in meta ? meta as UpstreamChart : chartId;
    return (await resolveChartDuration(upstream as Upstream, chart, { clock: clock() })).audio.durationSecs;
  };
}

Deno.test("a room's api endpoint override routes its chart lookup, record fetch and archive probe", async () => {
  const base = serveDevApi({ port: 0 });
  const other = serveDevApi({ port: 0 });
  other.api.state.addChart({ id: CHART, name: "Override Seven", audio: { format: "wav", durationSecs: 42 } });
  other.api.state.addChart({ id: 8, name: "Override Eight" });
  other.api.state.addRecord({ id: RECORD, player: 100, score: OVERRIDE_SCORE, accuracy: 1, full_combo: true });
  const defaultName = base.api.state.chart(CHART)!.name;
  const defaultSecs = base.api.state.chart(CHART)!.audio.durationSecs;
  const defaultScore = base.api.state.record(RECORD)!.score;
  const upstream = new Upstream({ baseUrl: base.url, clock: new ManualClock(), random: new SeededRandom(3) });
  // The resolver needs the harness's clock, which exists only once the harness does: bound late.
  const late: { clock?: ManualClock } = {};
  const u = await startUdsHarness({ config: QUIET, upstream, chartDuration: prober(() => late.clock!) });
  const { h } = u.c;
  late.clock = h.clock;
  // The default chart 7 is an MP3, whose length rounds up to whole frames; the override's WAV is exact.
  const probed = (room: string, secs: number) => {
    const d = h.server.core.rooms.get(room)?.chart?.durationSecs;
    return typeof d === "number" && d >= secs && d < secs + 0.1;
  };
  try {
    const uds = await u.client();
    const alice = await h.login(100);
    const bob = await h.login(200);
    deepEqual(counts(base), { me: 2 }, "logins use the server's endpoint");
    deepEqual(counts(other), {});

    // Console: `room set <id> api_endpoint <url>` on a room a player created.
    await alice.createRoom("ovr");
    deepEqual(await u.c.lines(`room set ovr api_endpoint ${other.url}`), [`room ovr: api endpoint ${other.url}`]);
    const a = mark(alice);
    await alice.selectChart(CHART);
    await waitUntil(() => probed("ovr", 42), "override probe");
    const probeFiles = counts(other).files ?? 0;
    equal(probeFiles >= 1, true, "the archive was probed on the override");
    deepEqual(counts(other), { chart: 1, files: probeFiles }, "one /chart lookup, then the archive");
    deepEqual(counts(base), { me: 2 }, "nothing of the room reached the default upstream");
    await alice.requestStart();
    await alice.played(RECORD);
    deepEqual(selections(alice, a), [{ type: "SelectChart", user: 100, name: "Override Seven", id: CHART }]);
    await waitUntil(() => alice.received.some((m) => m.type === "Message" && m.message.type === "GameEnd"), "GameEnd");
    const played = alice.received.flatMap((m) =>
      m.type === "Message" && m.message.type === "Played" ? [m.message] : []
    );
    notEqual(defaultScore, OVERRIDE_SCORE, "the two upstreams disagree on the record");
    deepEqual(played.map((m) => m.score), [OVERRIDE_SCORE], "the record came from the override");
    equal(counts(other).record, 1);
    // Settlement re-resolves the duration for the next round (spec 3 §3.1 rule 5): through the override as well.
    // (this test's prober has no cache, so the archive is read again).
    await waitUntil(
      () => counts(other).chart === 2 && counts(other).files === 2 * probeFiles,
      "re-resolution after the round",
    );
    deepEqual(Object.keys(counts(base)), ["me"], "still nothing on the default upstream");

    // A room without an override keeps using the default, beside the overridden one.
    const beforeOther = other.api.state.requests.length;
    await bob.createRoom("plain");
    const b = mark(bob);
    await bob.selectChart(CHART);
    await waitUntil(() => probed("plain", defaultSecs), "default probe");
    await bob.requestStart();
    await bob.played(200001);
    await waitUntil(() => bob.received.some((m) => m.type === "Message" && m.message.type === "GameEnd"), "GameEnd");
    deepEqual(selections(bob, b), [{ type: "SelectChart", user: 200, name: defaultName, id: CHART }]);
    await waitUntil(
      () => counts(base).chart === 2 && (counts(base).files ?? 0) >= 2,
      "re-resolution after the plain round",
    );
    equal(counts(base).record, 1);
    equal(counts(base).files! >= 1, true);
    deepEqual(other.api.state.requests.slice(beforeOther), [], "the plain room never asked the override");

    // Refused endpoint: the override stays; `default` returns the room to the server's upstream.
    const refused = await u.c.run("room set ovr api_endpoint ftp://example.invalid");
    equal(refused.ok, false);
    match(refused.lines.join("\n"), /endpoint must be an http\(s\) URL/);
    equal(h.server.core.rooms.get("ovr")?.apiEndpoint, other.url);
    deepEqual(await u.c.lines("room set ovr api_endpoint default"), ["room ovr: api endpoint server default"]);
    const baseBefore = base.api.state.requests.length;
    const otherBefore = other.api.state.requests.length;
    const c = mark(alice);
    await alice.selectChart(CHART);
    deepEqual(selections(alice, c), [{ type: "SelectChart", user: 100, name: defaultName, id: CHART }]);
    await waitUntil(() => probed("ovr", defaultSecs), "default probe");
    equal(counts(base, baseBefore).chart, 1);
    deepEqual(counts(other, otherBefore), {}, "the reset room no longer asks the override");

    // OpenUDS `room.create {endpoint}` (the admin facade's createEmpty): a player who joins and selects
    // a chart in it is served by the override too.
    await uds.ok("room.create", { room_id: "uds", endpoint: other.url });
    const carol = await h.login(300);
    await carol.joinRoom("uds");
    const otherBeforeUds = other.api.state.requests.length;
    const d = mark(carol);
    const admin = new Admin(h.server.core);
    const hostResult = admin.roomOps.setHost("uds", 300);
    equal(hostResult.ok, true, JSON.stringify(hostResult));
    await carol.selectChart(CHART);
    await waitUntil(() => probed("uds", 42), "override probe (uds)");
    deepEqual(selections(carol, d), [{ type: "SelectChart", user: 300, name: "Override Seven", id: CHART }]);
    equal(counts(other, otherBeforeUds).chart, 1);
    equal(counts(base, baseBefore).chart, 1, "the default upstream saw no lookup of the uds room");

    // The admin facade's own chart selection (`room set <id> chart`) looks the name up on the override too.
    const otherBeforeAdmin = other.api.state.requests.length;
    const set = await admin.roomOps.setChart("uds", 8);
    equal(set.ok, true, JSON.stringify(set));
    equal(h.server.core.rooms.get("uds")?.chart?.name, "Override Eight");
    // Its duration probe as well: wait for it, so nothing is in flight when the upstreams close.
    await waitUntil(() => typeof h.server.core.rooms.get("uds")?.chart?.durationSecs === "number", "admin probe");
    equal((counts(other, otherBeforeAdmin).chart ?? 0) >= 1, true);
    equal((counts(other, otherBeforeAdmin).files ?? 0) >= 1, true);
    equal(counts(base, baseBefore).chart, 1);
  } finally {
    await u.close();
    await base.close();
    await other.close();
  }
});
