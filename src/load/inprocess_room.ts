/**
 * One room of the in-process benchmark: virtual players (negative ids) whose
 * sessions run over in-memory pipes through the server's real session,
 * dispatch and room code. The chart is selected and the room made live by
 * operations (`room.set_chart` with a known length, `room.set_live`), so no
 * round needs the upstream; rounds end with every player aborting (bench
 * users have no upstream records).
 *
 * @module
 */

import { PhiraClient } from "../client/mod.ts";
import type { Actor, ServerOps } from "../ops/mod.ts";
import type { GameServer } from "../server/mod.ts";
import { tokenHash } from "../server/auth_cache.ts";
import type { Session } from "../session/session.ts";
import type { Clock } from "../util/clock.ts";
import { createPipe } from "../util/pipe.ts";
import { delay } from "./clients.ts";
import type { StreamHandle, TelemetryDriver } from "./telemetry.ts";

/** Bookkeeping shared by every virtual room. */
export interface BenchEnv {
  readonly server: GameServer;
  /** Room changes go through the operations layer like every operator's. */
  readonly ops: ServerOps;
  readonly clock: Clock;
  readonly driver: TelemetryDriver;
  readonly roundMs: number;
  readonly chart: number;
  /** Aborted when rounds should stop. */
  readonly stop: AbortSignal;
  /** Records one request: kind, round trip (null when it failed), failure text. */
  record(kind: string, ms: number | null, failure?: string): void;
  /** Opened sessions, for cleanup. */
  readonly sessions: Set<Session>;
}

interface Player {
  readonly id: number;
  client: PhiraClient | null;
  playing: boolean;
  waiter: (() => void) | null;
}

/** Who the benchmark's operations are audited as (in-process tooling: not audited). */
const BENCH_ACTOR: Actor = { kind: "system", component: "benchmark" };

/** Time allowed for a broadcast to reach a player. */
const STATE_TIMEOUT_MS = 10_000;

/**
 * The loopback address a virtual player connects from: one per player
 * (127.0.0.0/8), as real players come from their own addresses, so that the
 * per-address login bound (`max_pending_auth_per_ip`) sees many clients.
 */
export function localAddress(playerId: number): string {
  const n = Math.abs(playerId) & 0xffffff;
  return `127.${n >> 16}.${(n >> 8) & 0xff}.${n & 0xff}`;
}

/** A virtual room. */
export class BenchRoom {
  readonly id: string;
  readonly players: Player[];
  rounds = 0;
  #env: BenchEnv;
  #streams: StreamHandle[] = [];

  constructor(env: BenchEnv, id: string, playerIds: readonly number[]) {
    this.#env = env;
    this.id = id;
    this.players = playerIds.map((pid) => ({ id: pid, client: null, playing: false, waiter: null }));
  }

  async #timed<T>(kind: string, op: () => Promise<T>): Promise<T> {
    const start = this.#env.clock.monotonic();
    try {
      const value = await op();
      this.#env.record(kind, this.#env.clock.monotonic() - start);
      return value;
    } catch (error) {
      this.#env.record(kind, null, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  /** Opens a virtual session and logs in through a one-time authentication-cache entry. */
  async #login(p: Player): Promise<void> {
    const { server, clock } = this.#env;
    const [serverEnd, clientEnd] = createPipe(64 * 1024);
    const session = server.attach(serverEnd, localAddress(p.id));
    if (!session) throw new Error("the server refused a virtual session (full or shutting down)");
    this.#env.sessions.add(session);
    void session.done.then(() => this.#env.sessions.delete(session));
    p.client = new PhiraClient(clientEnd, {
      clock,
      pingIntervalMs: 0,
      logLimit: 0,
      eventBufferLimit: 0,
      onEvent: (e) => {
        if (e.type !== "ChangeState") return;
        p.playing = e.state.type === "Playing";
        const wake = p.waiter;
        p.waiter = null;
        wake?.();
      },
    });
    // A random token nobody else can present; its cache entry lives only for this login.
    const token = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0"))
      .join("");
    const cache = server.core.authCache;
    cache.set(await tokenHash(token), {
      user_id: p.id,
      name: `bench${-p.id}`,
      language: "en-US",
      cached_at: clock.now(),
    });
    try {
      const client = p.client;
      await this.#timed("Authenticate", () => client.authenticate(token));
    } finally {
      cache.forgetUser(p.id);
    }
  }

  /** Logs everyone in, creates the room, joins, selects the chart and makes the room live. */
  async setup(): Promise<void> {
    await Promise.all(this.players.map((p) => this.#login(p)));
    const [host, ...guests] = this.players;
    await this.#timed("CreateRoom", () => host!.client!.createRoom(this.id));
    await Promise.all(guests.map((p) => this.#timed("JoinRoom", () => p.client!.joinRoom(this.id))));
    const { ops, chart, roundMs } = this.#env;
    // A named chart of known length: no upstream lookup, no audio probe; live so telemetry takes the relay path.
    const selected = await ops.tryCall("room.set_chart", {
      room_id: this.id,
      chart_id: chart,
      chart_name: "bench",
      duration_secs: roundMs / 1000,
    }, BENCH_ACTOR);
    if (!selected.ok) throw new Error(`cannot select the bench chart in ${this.id}: ${selected.error.message}`);
    const live = await ops.tryCall("room.set_live", { room_id: this.id, live: true }, BENCH_ACTOR);
    if (!live.ok) throw new Error(`cannot make ${this.id} live: ${live.error.message}`);
  }

  /** Closes the room (its players leave); false when it is gone already. */
  async disband(): Promise<boolean> {
    return (await this.#env.ops.tryCall("room.close", { room_id: this.id }, BENCH_ACTOR)).ok;
  }

  /** Rounds until stopped. */
  async play(): Promise<void> {
    while (!this.#env.stop.aborted) await this.round();
  }

  /** Start, ready, play with telemetry, everyone aborts. */
  async round(): Promise<void> {
    const env = this.#env;
    const [host, ...guests] = this.players;
    await this.#timed("RequestStart", () => host!.client!.requestStart());
    await Promise.all(guests.map((p) => this.#timed("Ready", () => p.client!.ready())));
    await Promise.all(this.players.map((p) => this.#until(p, true)));
    for (const p of this.players) this.#streams.push(env.driver.play(p.client!));
    await delay(env.clock, env.roundMs, env.stop);
    this.stopTelemetry();
    await Promise.all(this.players.map((p) => this.#timed("Abort", () => p.client!.abort())));
    await Promise.all(this.players.map((p) => this.#until(p, false)));
    this.rounds++;
  }

  async #until(p: Player, playing: boolean): Promise<void> {
    const until = this.#env.clock.monotonic() + STATE_TIMEOUT_MS;
    while (p.playing !== playing) {
      if (this.#env.clock.monotonic() >= until || !p.client || p.client.isClosed) {
        throw new Error(`player ${p.id} did not see the round ${playing ? "start" : "end"}`);
      }
      const clock = this.#env.clock;
      await new Promise<void>((resolve) => {
        const timer = clock.setTimeout(resolve, 100);
        p.waiter = () => {
          clock.clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Stops the players' telemetry. */
  stopTelemetry(): void {
    for (const s of this.#streams) s.stop();
    this.#streams = [];
  }

  /** Closes the players' virtual connections. */
  async close(): Promise<void> {
    this.stopTelemetry();
    await Promise.all(this.players.map((p) => p.client?.close()));
  }
}
