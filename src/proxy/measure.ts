/**
 * Measures the monitor proxy and prints the table of `BENCHMARKS.md`:
 *
 * 1. SSE fan-out: N subscribers on the proxy's `/rooms/listen` while game
 *    clients create and leave rooms at a fixed rate -- the load generator's
 *    `sse` scenario pointed at the proxy; latency from `CreateRoom` sent to
 *    `create_room` received at each subscriber (game server -> room monitor
 *    -> proxy -> every stream).
 * 2. `/ws/live` relay: P players in one room play while a spectator watches
 *    through the proxy; latency from a player's `Touches`/`Judges` send to
 *    its arrival at the spectator's WebSocket (player -> game server -> the
 *    spectator's game-monitor session -> proxy -> browser socket). The send
 *    time rides in the last frame's `time`, as in the load generator.
 *
 * Processes: `main.ts dev` (game server and development upstream) and
 * `deno task proxy` as children, this script as the generator. For scale,
 * the same fan-out is also measured on the game server's own `/rooms/listen`
 * (no proxy in between), in the same conditions.
 *
 * Usage: deno run -A src/proxy/measure.ts [--subscribers 1000] [--events-per-sec 10] [--duration 30] [--players 8]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { connect, type PhiraClient } from "../client/mod.ts";
import { decodeLiveEvent, encodeWsCommand } from "../http/mod.ts";
import { freePort } from "../load/target.ts";
import { Histogram, type LatencySummary } from "../load/stats.ts";
import type { JudgeEvent, TouchFrame } from "../protocol/mod.ts";
import { DEV_PASSWORD, devEmail, devToken } from "../upstream/mod.ts";
import { denoTasks, taskCommand } from "../util/deno_tasks.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const SECRET = "measure-secret-0123456789abcdef";
const SPECTATOR = 900001;

/** A child process with its output collected. */
function spawn(args: string[], env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) lines.push(...chunk.split("\n"));
  };
  const done = Promise.all([pump(child.stdout), pump(child.stderr)]).catch(() => {});
  return { child, lines, done };
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => null);
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What the load generator's `sse` report says. */
interface SseResults {
  subscribers: { ready: number };
  deliveries: { expected: number; delivered: number; lagged: number };
  deliveryLatency: LatencySummary;
  serverCpuPercent: number | null;
  otherCpu: number | null;
}

function fmt(n: number): string {
  return n.toLocaleString("en-US");
}

function pct(v: number | null): string {
  return v === null ? "\u2014" : `${Math.round(v)} %`;
}

function sseRow(name: string, r: SseResults, load: string): string {
  const d = r.deliveryLatency;
  return `| ${name} | ${fmt(r.subscribers.ready)} subscribers, ${load} | ${fmt(r.deliveries.delivered)} / ` +
    `${fmt(r.deliveries.expected)} (lagged ${r.deliveries.lagged}) | ${ms(d.p50)} | ${ms(d.p99)} | ${ms(d.max)} | ` +
    `${pct(r.serverCpuPercent)} | ${pct(r.otherCpu)} |`;
}

function ms(v: number | null): string {
  return v === null ? "\u2014" : v < 10 ? `${v.toFixed(1)} ms` : `${Math.round(v)} ms`;
}

async function login(port: number, id: number): Promise<PhiraClient> {
  const c = await connect({ port, pingIntervalMs: 3000, eventBufferLimit: 0, logLimit: 0 });
  await c.authenticate(devToken(id));
  return c;
}

/** Part 2: one room of `players`, one spectator through the proxy. */
async function relay(gamePort: number, proxyUrl: string, players: number, seconds: number) {
  const clients = await Promise.all(Array.from({ length: players }, (_, i) => login(gamePort, 710001 + i)));
  const [host, ...rest] = clients as [PhiraClient, ...PhiraClient[]];
  await host.createRoom("relay");
  for (const c of rest) await c.joinRoom("relay");
  const res = await fetch(`${proxyUrl}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: devEmail(SPECTATOR), password: DEV_PASSWORD }),
  });
  const { token } = await res.json();
  const t0 = performance.now();
  const latency = new Histogram();
  let received = 0;
  const ws = new WebSocket(`${proxyUrl.replace("http", "ws")}/ws/live?token=${encodeURIComponent(token)}`);
  ws.binaryType = "arraybuffer";
  const joined = Promise.withResolvers<void>();
  ws.onmessage = (e) => {
    const event = decodeLiveEvent(new Uint8Array(e.data));
    const now = performance.now() - t0;
    if (Deno.env.get("MEASURE_DEBUG") && event.type !== "Touches" && event.type !== "Judges") {
      console.log("spectator:", JSON.stringify(event));
    }
    if (event.type === "Authenticate") ws.send(encodeWsCommand({ type: "Join", room_id: "relay" }));
    else if (event.type === "Join") joined.resolve();
    else if (event.type === "StateChange" && event.state.type === "WaitingForReady") {
      ws.send(encodeWsCommand({ type: "Ready" }));
    } else if (event.type === "Touches" || event.type === "Judges") {
      const items = event.type === "Touches" ? event.frames : event.judges;
      const sent = items.at(-1)!.time * 1000;
      latency.record(now - sent);
      received++;
    }
  };
  await joined.promise;
  await host.selectChart(7);
  await host.requestStart();
  // Waiting first: the clients keep no event buffer, so the start must not arrive before anyone waits for it.
  const playing = host.waitFor("ChangeState", (e) => e.state.type === "Playing", 30_000);
  await Promise.all(rest.map((c) => c.ready()));
  await playing;
  // Official rates (protocol.md §3.1): touches every 100 ms here (2 frames), judges about every 650 ms.
  let sent = 0;
  const end = performance.now() + seconds * 1000;
  let tick = 0;
  while (performance.now() < end) {
    const t = (performance.now() - t0) / 1000;
    for (const c of clients) {
      const frames: TouchFrame[] = [
        { time: t - 0.05, points: [[0, { x: 0.1, y: 0.2 }]] },
        { time: t, points: [[0, { x: 0.2, y: 0.2 }], [1, { x: -0.3, y: 0.1 }]] },
      ];
      c.touches(frames);
      sent++;
      if (tick % 7 === 0) {
        const judges: JudgeEvent[] = Array.from({ length: 10 }, (_, i) => ({
          time: t - (9 - i) * 0.06,
          line_id: 0,
          note_id: tick * 10 + i,
          judgement: "Perfect",
        }));
        c.judges(judges);
        sent++;
      }
    }
    tick++;
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1000));
  ws.close();
  await Promise.all(clients.map((c) => c.close()));
  return { sent, received, latency: latency.summary() };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      subscribers: { type: "string", default: "1000" },
      "events-per-sec": { type: "string", default: "10" },
      duration: { type: "string", default: "30" },
      players: { type: "string", default: "8" },
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "chorus-proxy-measure-" });
  const gamePort = freePort();
  const gameHttpPort = freePort();
  const proxyPort = freePort();
  const game = spawn([
    "run",
    "-A",
    "main.ts",
    "dev",
    "--no-cli",
    ...["--port", String(gamePort), "--http-port", String(gameHttpPort), "--bind-address", "127.0.0.1"],
    ...["--http-bind-address", "127.0.0.1"],
    ...["--data-dir", `${dir}/server`, "--dev-upstream-port", "0", "--log-level", "warn"],
    ...["--service-secret-key", SECRET, "--monitors", String(SPECTATOR), "--connection-rate-limit", "1000000"],
  ]);
  const task = taskCommand(denoTasks(await Deno.readTextFile(`${ROOT}/deno.json`)), "proxy");
  let proxy: ReturnType<typeof spawn> | null = null;
  try {
    const upstream = await until(
      "the game server",
      () => game.lines.map((l) => /^development upstream: (\S+)/.exec(l)?.[1]).find(Boolean) ?? null,
    );
    proxy = spawn([
      ...task.split(/\s+/).slice(1),
      ...["--debug", "--host", "127.0.0.1", "--port", String(proxyPort), "--log-level", "warn"],
      ...["--mp-server", `127.0.0.1:${gamePort}`, "--api-base", upstream, "--data-dir", `${dir}/proxy`],
    ], { SERVICE_SECRET_KEY: SECRET });
    const proxyUrl = `http://127.0.0.1:${proxyPort}`;
    await until("the proxy's link", async () => (await fetch(`${proxyUrl}/rooms/info`)).ok ? true : null);
    // One room exists, so every subscriber's stream starts with a create_room (the generator counts it ready).
    const lobby = await login(gamePort, 700000);
    await lobby.createRoom("lobby");

    const fanout = async (httpPort: number, pid: number, name: string): Promise<SseResults> => {
      const report = `${dir}/${name}.json`;
      const load = spawn([
        "run",
        "-A",
        "main.ts",
        "load",
        "sse",
        ...["--port", String(gamePort), "--http-port", String(httpPort), "--path", "/rooms/listen"],
        ...["--subscribers", values.subscribers!, "--events-per-sec", values["events-per-sec"]!],
        ...["--duration", values.duration!, "--no-progress", "--json", report],
        ...["--server-pid", String(pid)],
      ]);
      await load.child.status;
      await load.done;
      const full = JSON.parse(await Deno.readTextFile(report));
      if (Deno.env.get("MEASURE_DEBUG")) console.log(JSON.stringify(full, null, 1));
      return { ...full.results, otherCpu: full.machineLoad?.otherCpuPercent ?? null };
    };
    const direct = await fanout(gameHttpPort, game.child.pid, "direct");
    const sse = await fanout(proxyPort, proxy.child.pid, "proxy");
    const live = await relay(gamePort, proxyUrl, Number(values.players), Number(values.duration));
    await lobby.close();

    const l = live.latency;
    const load = `${values["events-per-sec"]} rooms/s, ${values.duration} s`;
    console.log([
      "| Measurement | Load | Delivered | p50 | p99 | max | CPU of the server measured | Other processes' CPU |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
      sseRow("SSE fan-out through the proxy (`/rooms/listen`)", sse, load),
      sseRow("same, game server's own `/rooms/listen` (no proxy)", direct, load),
      `| \`/ws/live\` relay through the proxy | ${values.players} players, 1 spectator, ${values.duration} s | ` +
      `${fmt(live.received)} / ${fmt(live.sent)} batches | ${ms(l.p50)} | ${ms(l.p99)} | ${
        ms(l.max)
      } | \u2014 | \u2014 |`,
    ].join("\n"));
  } finally {
    proxy?.child.kill("SIGTERM");
    await proxy?.child.status;
    game.child.kill("SIGTERM");
    await game.child.status;
    await Promise.all([proxy?.done, game.done]);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
