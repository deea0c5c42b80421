/**
 * Per-session memory of idle logged-in sessions (issue 15): a game server in
 * this process (the test harness: development upstream in-process, manual
 * clock, so no heartbeat ever fires) and N real loopback connections opened
 * by a child process (their cost is the child's, not ours), each logged in
 * as its own development user. After a warm-up batch the heap and RSS are
 * sampled after forced GCs, N sessions are added, and the differences per
 * session are printed. Figures go to BENCHMARKS.md, never into tests.
 *
 *   deno run -A --v8-flags=--expose-gc tests/support/session_memory_measure.ts [sessions=2000] [rounds=1]
 *   deno run -A --v8-flags=--expose-gc tests/support/session_memory_measure.ts flood [connections=300]
 *
 *   deno run -A --v8-flags=--expose-gc tests/support/session_memory_measure.ts pings [sessions=1000] [rounds=100]
 *
 * `pings` measures the server's CPU per `Ping`/`Pong` round trip instead
 * (every session pings, waits for its `Pong`, `rounds` times). `flood` is
 * issue 14's probe: connections that never log in, each
 * sending one 2 MiB − 1 frame, and the server's RSS (and peak RSS) before and
 * after.
 *
 * @module
 */

import process from "node:process";
import v8 from "node:v8";
import { encodeClientCommand } from "../../src/protocol/mod.ts";
import { devToken, settle, startHarness } from "./harness.ts";

const WARM_UP = 200;

/**
 * Child mode: `n` connections logged in as users `first`…, prints "ready"; with `rounds`, then pings on every
 * connection that many times and prints "done <ms>"; holds them until stdin closes.
 */
async function clients(port: number, n: number, first: number, rounds = 0): Promise<void> {
  const conns: Deno.TcpConn[] = [];
  const buf = new Uint8Array(4096);
  for (let i = 0; i < n; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, n - i) }, async (_, k) => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(
        new Uint8Array([1, ...encodeClientCommand({ type: "Authenticate", token: devToken(first + i + k) })]),
      );
      // The reply (and nothing else is sent to an idle lobby session).
      if ((await conn.read(buf)) === null) throw new Error("closed before the login reply");
      conns.push(conn);
    }));
  }
  console.log("ready");
  if (rounds > 0) {
    const ping = encodeClientCommand({ type: "Ping" });
    const started = performance.now();
    for (let r = 0; r < rounds; r++) {
      await Promise.all(conns.map(async (c) => {
        await c.write(ping);
        await c.read(new Uint8Array(16));
      }));
    }
    console.log(`done ${Math.round(performance.now() - started)}`);
  }
  // Hold until the parent closes stdin.
  for await (const _ of Deno.stdin.readable) { /* nothing */ }
  for (const c of conns) c.close();
}

/** Child mode: `n` connections each sending the version byte and one 2 MiB − 1 frame without logging in. */
async function flood(port: number, n: number): Promise<void> {
  const length = 2 * 1024 * 1024 - 1;
  const frame = new Uint8Array(4 + length);
  frame.set([1, 0xff, 0xff, 0x7f]); // version, then ULEB128(2,097,151)
  await Promise.all(Array.from({ length: n }, async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      for (let off = 0; off < frame.length;) off += await conn.write(frame.subarray(off));
    } catch {
      // The server closed the connection: the point of the probe.
    }
    try {
      conn.close();
    } catch {
      // Closed.
    }
  }));
  console.log("ready");
  for await (const _ of Deno.stdin.readable) { /* hold until the parent is done */ }
}

/** Peak RSS of this process so far (kB → bytes), from /proc. */
async function peakRss(): Promise<number> {
  const status = await Deno.readTextFile("/proc/self/status");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/** Server CPU per ping round trip, `n` sessions × `rounds`. */
async function measurePings(n: number, rounds: number): Promise<void> {
  const h = await startHarness({
    config: {
      max_sessions: 100_000,
      max_pending_auth: 100_000,
      connection_rate_limit: 1_000_000,
      heartbeat_timeout: 3600,
    },
  });
  const child = spawnClients(h.port, n, 1, "clients", rounds);
  await child.ready;
  const start = process.cpuUsage();
  const wallMs = await child.done;
  const cpu = process.cpuUsage(start);
  const us = cpu.user + cpu.system;
  console.log(
    `${n * rounds} pings over ${n} sessions: server CPU ${Math.round(us / 1000)} ms ` +
      `(${(us / (n * rounds)).toFixed(1)} µs per ping), wall ${wallMs} ms`,
  );
  await child.stop();
  await h.close({ allowViolations: true });
}

/** The frame budget in use (servers before issue 14's budget have none). */
function budgetUsed(server: object): string {
  return String((server as { frameBudget?: { used: number } }).frameBudget?.used ?? "n/a");
}

async function measureFlood(n: number): Promise<void> {
  const h = await startHarness({ config: { connection_rate_limit: 1_000_000, max_sessions: 100_000 } });
  const before = await sample();
  const peakBefore = await peakRss();
  const child = spawnClients(h.port, n, 0, "flood");
  await child.ready;
  for (let i = 0; i < 10_000 && h.server.core.sessions.size > 0; i++) await settle(2);
  const after = await sample();
  const mib = (v: number) => (v / 1024 / 1024).toFixed(1);
  console.log(
    `${n} pre-login 2 MiB floods: RSS ${mib(before.rss)} → ${mib(after.rss)} MiB, peak RSS ${mib(peakBefore)} → ` +
      `${mib(await peakRss())} MiB, frame budget in use ${budgetUsed(h.server)} B, ` +
      `malformed_frames ${h.server.core.counters.values.malformed_frames}`,
  );
  await child.stop();
  await h.close({ allowViolations: true });
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("run with --v8-flags=--expose-gc");
  collect();
  collect();
}

async function sample(): Promise<Deno.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    await settle(5);
    gc();
  }
  return Deno.memoryUsage();
}

function spawnClients(
  port: number,
  n: number,
  first: number,
  mode = "clients",
  rounds = 0,
): { ready: Promise<void>; done: Promise<number>; stop(): Promise<void> } {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      import.meta.filename!,
      mode,
      String(port),
      String(n),
      String(first),
      String(rounds),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const until = async (word: string) => {
    while (!text.includes(word)) {
      const { value, done } = await reader.read();
      if (done) throw new Error("client process ended early");
      text += value;
    }
  };
  const ready = until("ready");
  const done = ready.then(() => until("done ")).then(() => Number(/done (\d+)/.exec(text)?.[1]));
  done.catch(() => {});
  return {
    ready,
    done,
    async stop() {
      await writer.close();
      await child.status;
      await reader.cancel().catch(() => {});
    },
  };
}

async function measure(n: number): Promise<void> {
  const h = await startHarness({
    config: {
      max_sessions: 100_000,
      max_pending_auth: 100_000,
      connection_rate_limit: 1_000_000,
      heartbeat_timeout: 3600,
      auth_timeout: 3600,
    },
  });
  const active = () => [...h.server.core.sessions].filter((s) => s.state === "active").length;
  const waitActive = async (count: number) => {
    for (let i = 0; i < 10_000 && active() < count; i++) await settle(2);
    if (active() < count) throw new Error(`only ${active()} of ${count} sessions active`);
  };
  const warm = spawnClients(h.port, WARM_UP, 1);
  await warm.ready;
  await waitActive(WARM_UP);
  const before = await sample();
  const dir = Deno.env.get("CHORUS_HEAP_SNAPSHOTS");
  if (dir) v8.writeHeapSnapshot(`${dir}/sessions-0.heapsnapshot`);
  const load = spawnClients(h.port, n, 100_000);
  await load.ready;
  await waitActive(WARM_UP + n);
  const after = await sample();
  // CHORUS_HEAP_SNAPSHOTS=dir: heap snapshots of both states, to see what a session is made of.
  const snapshots = Deno.env.get("CHORUS_HEAP_SNAPSHOTS");
  if (snapshots) v8.writeHeapSnapshot(`${snapshots}/sessions-${n}.heapsnapshot`);
  const per = (k: keyof Deno.MemoryUsage) => ((after[k] - before[k]) / n / 1024).toFixed(2);
  const mib = (v: number) => (v / 1024 / 1024).toFixed(1);
  console.log(
    `${n} idle logged-in sessions: heapUsed ${per("heapUsed")} KiB/session, heapTotal ${
      per("heapTotal")
    } KiB/session, ` +
      `external ${per("external")} KiB/session, ` +
      `RSS ${per("rss")} KiB/session (heapUsed ${mib(before.heapUsed)} → ${mib(after.heapUsed)} MiB, ` +
      `RSS ${mib(before.rss)} → ${mib(after.rss)} MiB)`,
  );
  await load.stop();
  await warm.stop();
  await h.close({ allowViolations: true });
}

if (Deno.args[0] === "clients") {
  await clients(Number(Deno.args[1]), Number(Deno.args[2]), Number(Deno.args[3]), Number(Deno.args[4] ?? 0));
} else if (Deno.args[0] === "pings") {
  await measurePings(Number(Deno.args[1] ?? 1000), Number(Deno.args[2] ?? 100));
} else if (Deno.args[0] === "flood" && Deno.args.length > 2) {
  await flood(Number(Deno.args[1]), Number(Deno.args[2]));
} else if (Deno.args[0] === "flood") {
  await measureFlood(Number(Deno.args[1] ?? 300));
} else {
  const n = Number(Deno.args[0] ?? 2000);
  const rounds = Number(Deno.args[1] ?? 1);
  for (let i = 0; i < rounds; i++) await measure(n);
}
