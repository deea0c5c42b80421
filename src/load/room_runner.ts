/**
 * One simulated room of the `rooms` scenario: a host and players who play
 * full rounds (select, start, ready, play, results) and a monitor that
 * spectates, all over real TCP. Players start their telemetry when they see
 * `ChangeState(Playing)`, as the game does, and stop it before reporting
 * their record.
 *
 * @module
 */

import type { ClientEvent, PhiraClient } from "../client/mod.ts";
import { devRecordId, devToken } from "../upstream/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { ConcurrencyLimit } from "../util/concurrency_limit.ts";
import { type CommandTimes, delay, type Endpoint, type ErrorTally, openLoadClient } from "./clients.ts";
import type { PingDriver } from "./pinger.ts";
import type { RelayMeter, StreamHandle, TelemetryDriver } from "./telemetry.ts";

type StateName = "SelectChart" | "WaitingForReady" | "Playing";

/** A client plus the room state it last saw, with waiters. */
class Member {
  client!: PhiraClient;
  state: StateName | null = null;
  #waiters: { want: StateName; resolve: () => void }[] = [];

  constructor(readonly id: number) {}

  onEvent(event: ClientEvent): void {
    if (event.type !== "ChangeState") return;
    this.state = event.state.type;
    const ready = this.#waiters.filter((w) => w.want === this.state);
    if (!ready.length) return;
    this.#waiters = this.#waiters.filter((w) => w.want !== this.state);
    for (const w of ready) w.resolve();
  }

  /** Resolves when the member has seen `want` (at once if it already has); rejects after `timeoutMs`. */
  waitState(clock: Clock, want: StateName, timeoutMs: number): Promise<void> {
    if (this.state === want) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = clock.setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`player ${this.id} did not see ${want} within ${timeoutMs} ms (state ${this.state})`));
      }, timeoutMs);
      const waiter = {
        want,
        resolve: () => {
          clock.clearTimeout(timer);
          resolve();
        },
      };
      this.#waiters.push(waiter);
    });
  }
}

/** Shared machinery of every room. */
export interface RoomEnv {
  readonly endpoint: Endpoint;
  readonly clock: Clock;
  readonly errors: ErrorTally;
  readonly times: CommandTimes;
  readonly driver: TelemetryDriver;
  readonly relay: RelayMeter;
  /** Bounds logins in flight (the server answers "busy" beyond `max_pending_auth`). */
  readonly logins: ConcurrencyLimit;
  /** Heartbeats of every member once logged in. */
  readonly pinger: PingDriver;
  readonly chart: number;
  readonly roundMs: number;
  /** Aborted when the run should wind down: the current round ends early, no new one starts. */
  readonly stop: AbortSignal;
}

/** Time allowed for a broadcast to reach every member. */
const STATE_TIMEOUT_MS = 10_000;

/** One room: setup, rounds until stopped, then close. */
export class RoomRunner {
  readonly roomId: string;
  readonly players: Member[];
  readonly monitor: Member | null;
  rounds = 0;
  failed = false;
  #env: RoomEnv;
  #streams: StreamHandle[] = [];

  constructor(env: RoomEnv, roomId: string, playerIds: readonly number[], monitorId: number | null) {
    this.#env = env;
    this.roomId = roomId;
    this.players = playerIds.map((id) => new Member(id));
    this.monitor = monitorId === null ? null : new Member(monitorId);
  }

  /** Every member. */
  get members(): Member[] {
    return this.monitor ? [...this.players, this.monitor] : this.players;
  }

  /**
   * Connects and logs in everyone, creates the room, joins players then the
   * monitor. When `signal` aborts first (the setup limit or the run's stop),
   * logins still waiting for their turn are dropped and every connection made
   * so far is closed, so the setup settles at once instead of waiting out a
   * saturated server.
   */
  async setup(signal?: AbortSignal): Promise<void> {
    const abandon = () => void this.closeClients();
    signal?.addEventListener("abort", abandon, { once: true });
    try {
      await this.#setup(signal);
    } finally {
      signal?.removeEventListener("abort", abandon);
    }
    if (signal?.aborted) throw new Error("setup unfinished when the setup time ran out");
  }

  async #setup(signal?: AbortSignal): Promise<void> {
    const env = this.#env;
    const { times } = env;
    await Promise.all(this.members.map((m) =>
      env.logins.run(async () => {
        const relay = m === this.monitor ? env.relay : null;
        const client = await times.time("connect", () =>
          openLoadClient(env.endpoint, {
            clock: env.clock,
            errors: env.errors,
            pingIntervalMs: 0,
            onEvent: relay ? (e) => (m.onEvent(e), relay.onEvent(e)) : (e) => m.onEvent(e),
            ...(signal ? { signal } : {}),
          }));
        m.client = client;
        if (signal?.aborted) await client.close();
        await times.time("Authenticate", () => client.authenticate(devToken(m.id)));
        env.pinger.add(client);
      }, signal)
    ));
    const [host, ...guests] = this.players;
    await times.time("CreateRoom", () => host!.client.createRoom(this.roomId));
    host!.state = "SelectChart";
    await Promise.all(guests.map(async (p) => {
      await times.time("JoinRoom", () => p.client.joinRoom(this.roomId));
      p.state = "SelectChart";
    }));
    if (this.monitor) {
      const mon = this.monitor;
      await times.time("JoinRoom(monitor)", () => mon.client.joinRoom(this.roomId, true));
      mon.state = "SelectChart";
    }
  }

  /** Plays rounds until the stop signal; a failure ends this room's rounds (counted by the caller). */
  async play(): Promise<void> {
    while (!this.#env.stop.aborted) await this.round();
  }

  /** One full round. */
  async round(): Promise<void> {
    const env = this.#env;
    const { clock, times } = env;
    const [host, ...guests] = this.players;
    await times.time("SelectChart", () => host!.client.selectChart(env.chart));
    await times.time("RequestStart", () => host!.client.requestStart());
    // The monitor readies like phira-monitor does on WaitingForReady (protocol.md §5.6).
    const readiers = this.monitor ? [...guests, this.monitor] : guests;
    await Promise.all(readiers.map((m) => times.time("Ready", () => m.client.ready())));
    await Promise.all(this.players.map(async (p) => {
      await p.waitState(clock, "Playing", STATE_TIMEOUT_MS);
      this.#streams.push(env.driver.play(p.client));
    }));
    await delay(clock, env.roundMs, env.stop);
    this.stopTelemetry();
    await Promise.all(this.players.map((p) => times.time("Played", () => p.client.played(devRecordId(p.id, 1)))));
    await Promise.all(this.members.map((m) => m.waitState(clock, "SelectChart", STATE_TIMEOUT_MS)));
    this.rounds++;
  }

  /** Stops every member's telemetry stream. */
  stopTelemetry(): void {
    for (const s of this.#streams) s.stop();
    this.#streams = [];
  }

  /**
   * Leaves the room (so the server has no dangling users to expire after the
   * run) and closes every member's connection.
   */
  async close(): Promise<void> {
    this.stopTelemetry();
    const { times } = this.#env;
    await Promise.all(this.members.map(async (m) => {
      if (!m.client) return;
      if (!m.client.isClosed && m.state !== null) {
        await times.time("LeaveRoom", () => m.client.leaveRoom()).catch(() => {});
      }
      await m.client.close();
    }));
  }

  /** Closes every connection made so far (requests in flight reject with `closed`). */
  async closeClients(): Promise<void> {
    await Promise.all(this.members.map((m) => m.client?.close()));
  }
}
