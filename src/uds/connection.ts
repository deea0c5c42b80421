/**
 * One OpenUDS client connection (spec 3 §4.5): the handshake (token mode
 * with a constant-time comparison, or console approval), then requests in
 * the `{type: response, id, ok, data | error}` envelope, subscriptions and
 * streams, and `server.heartbeat` every `heartbeat_interval_secs`.
 * Requests are handled one at a time in order; events interleave between
 * responses.
 *
 * @module
 */

import type { ServerOps } from "../ops/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { FailureThrottle, FailureThrottleOptions } from "../util/failure_throttle.ts";
import type { Logger, LogHub } from "../util/log.ts";
import type { PendingApprovals } from "./approvals.ts";
import { Feeds } from "./feeds.ts";
import { encodeFrame, FrameError, FrameReader } from "./framing.ts";
import type { OpenUdsConfig } from "./server.ts";

/**
 * Time a client has to send `authenticate` (the approval wait has its own
 * limit): an operator's tool sends it at once, and a connection that does
 * not must not hold a slot for long (issue 14).
 */
export const AUTH_TIMEOUT_MS = 5_000;
/**
 * Failed token checks (issue 14): after 3 failures in a row every attempt
 * waits 1 s, doubling to 1 min; 30 failures per 10 min at most. The socket
 * has no addresses: every client is one key.
 */
export const OPENUDS_AUTH_LIMITS: FailureThrottleOptions = {
  freeFailures: 3,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  budget: 30,
  budgetWindowMs: 600_000,
};
/** The one key of {@link OPENUDS_AUTH_LIMITS}. */
const LOCAL = "openuds";
/** Longest `client_name` kept. */
const MAX_CLIENT_NAME = 64;

/** What connections share. */
export interface ConnectionContext {
  /** Every command is the operation of that name. */
  readonly ops: ServerOps;
  readonly config: OpenUdsConfig;
  readonly approvals: PendingApprovals;
  readonly logs: LogHub | undefined;
  readonly clock: Clock;
  readonly log: Logger;
  /** True when `token` equals `openuds.auth_token` (constant time). */
  tokenMatches(token: string): Promise<boolean>;
  /** Authenticated connections now. */
  authenticated(): number;
  /** Back-off and budget of failed tokens. */
  readonly failures: FailureThrottle;
  closed(conn: UdsConnection): void;
}

type Frame = Record<string, unknown>;
type Id = string | number | null;
const CONTROL = new Set(["subscribe", "unsubscribe", "subscribe_stream", "unsubscribe_stream", "ping"]);

function isFrame(v: unknown): v is Frame {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A connected client. */
export class UdsConnection {
  state: "new" | "pending" | "active" | "closed" = "new";
  sessionId: string | null = null;
  clientName = "";
  readonly #conn: Deno.Conn;
  readonly #ctx: ConnectionContext;
  readonly #feeds: Feeds;
  #writes: Promise<void> = Promise.resolve();
  #authTimer: TimerHandle | undefined;
  #heartbeat: TimerHandle | undefined;
  #beating = false;
  #pending: { cancel(): void } | null = null;

  constructor(conn: Deno.Conn, ctx: ConnectionContext) {
    this.#conn = conn;
    this.#ctx = ctx;
    this.#feeds = new Feeds(ctx.ops.context.core.ctx.bus, ctx.logs, ctx.config.event_buffer_size, (f) => this.send(f));
  }

  /** Reads and handles frames until the client goes or the connection is closed. */
  async run(): Promise<void> {
    const reader = new FrameReader(this.#conn);
    this.#authTimer = this.#ctx.clock.setTimeout(() => {
      if (this.state === "new") void this.refuse("UNAUTHORIZED", "authentication timed out");
    }, AUTH_TIMEOUT_MS);
    try {
      while (this.state !== "closed") {
        let frame: unknown;
        try {
          frame = await reader.next();
        } catch (error) {
          if (!(error instanceof FrameError) || error.fatal) throw error;
          await this.#error(null, "INVALID_FRAME", error.message);
          continue;
        }
        if (frame === null) break;
        await this.#onFrame(frame);
      }
    } catch (error) {
      if (this.state !== "closed") this.#ctx.log.info("OpenUDS connection ended", { reason: String(error) });
    } finally {
      this.close();
    }
  }

  /** Writes one frame after those already queued; rejects (and closes) when the client is gone. */
  send(frame: Frame): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = encodeFrame(frame);
    } catch (error) {
      // Too large (over 16 MiB) or not serializable: the client gets INTERNAL, the operator a log line.
      this.#ctx.log.warn("OpenUDS frame replaced by an INTERNAL error", {
        client: this.clientName,
        type: frame.type,
        id: frame.id ?? null,
        error: error instanceof Error ? error.message : String(error),
      });
      bytes = encodeFrame({
        type: "response",
        id: frame.id ?? null,
        ok: false,
        error: { code: "INTERNAL", message: error instanceof Error ? error.message : String(error) },
      });
    }
    const write = this.#writes.then(async () => {
      let rest = bytes;
      while (rest.length) rest = rest.subarray(await this.#conn.write(rest));
    });
    this.#writes = write.catch(() => this.close());
    return write;
  }

  /** Closes the connection and stops its feeds and timers. */
  close(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.#ctx.clock.clearTimeout(this.#authTimer);
    this.#ctx.clock.clearTimeout(this.#heartbeat);
    this.#pending?.cancel();
    this.#feeds.close();
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
    this.#ctx.closed(this);
  }

  #error(id: Id, code: string, message: string, extra?: Frame): Promise<void> {
    return this.send({ type: "response", id, ok: false, error: { code, message, ...extra } });
  }

  /** Sends `auth_error` and closes (also used by the listener to make room, see `server.ts`). */
  async refuse(code: string, message: string, extra?: Frame): Promise<void> {
    await this.send({ type: "auth_error", code, message, ...extra }).catch(() => {});
    this.close();
  }

  #onFrame(frame: unknown): Promise<void> {
    if (!isFrame(frame)) {
      if (this.state === "active") return this.#error(null, "INVALID_FRAME", "expected a JSON object");
      return this.refuse("UNAUTHORIZED", "authentication required");
    }
    const type = typeof frame.type === "string" ? frame.type.toLowerCase() : "";
    const id: Id = typeof frame.id === "string" || typeof frame.id === "number" ? frame.id : null;
    if (this.state === "new") {
      if (type === "authenticate") return this.#authenticate(frame);
      return this.refuse("UNAUTHORIZED", "authentication required: send {type: authenticate} first");
    }
    if (this.state === "pending") return this.#error(id, "UNAUTHORIZED", "waiting for console approval");
    if (type === "" || type === "command" || type === "request") return this.#command(frame, id);
    if (CONTROL.has(type)) return this.#control(type, frame, id);
    if (type === "authenticate") return this.#error(id, "INVALID_STATE", "already authenticated");
    return this.#error(id, "INVALID_FRAME", `unknown frame type "${String(frame.type)}"`);
  }

  async #authenticate(frame: Frame): Promise<void> {
    this.#ctx.clock.clearTimeout(this.#authTimer);
    const name = typeof frame.client_name === "string" ? frame.client_name.slice(0, MAX_CLIENT_NAME) : "";
    this.clientName = name || "unnamed";
    if (this.#ctx.config.auth_token) {
      // Token mode (spec 3 §5 rule 3); the token itself is never logged. While failures back off nothing is compared.
      const { clock, failures, log } = this.#ctx;
      const wait = failures.wait(LOCAL, clock.monotonic());
      if (wait > 0) {
        const secs = Math.max(1, Math.ceil(wait / 1000));
        log.warn("OpenUDS client refused: failed authentications back off", { client: this.clientName, secs });
        return this.refuse("RATE_LIMITED", `too many failed authentications; retry in ${secs} s`, {
          retry_after_secs: secs,
        });
      }
      const ok = typeof frame.token === "string" && await this.#ctx.tokenMatches(frame.token);
      if (!ok) failures.failed(LOCAL, clock.monotonic());
      else failures.succeeded(LOCAL);
      if (this.state === "closed") return;
      if (!ok) {
        log.warn("OpenUDS client refused: invalid token", { client: this.clientName });
        return this.refuse("UNAUTHORIZED", "invalid token");
      }
      return this.#activate("token");
    }
    if (frame.token !== undefined) return this.refuse("UNAUTHORIZED", "token authentication is not configured");
    this.state = "pending";
    const req = this.#ctx.approvals.request(
      this.clientName,
      () => void this.#activate("approval"),
      () => void this.refuse("UNAUTHORIZED", "approval request expired"),
    );
    this.#pending = req;
    this.#ctx.log.warn("OpenUDS client waits for approval", {
      client: this.clientName,
      pending_id: req.pending_id,
      approve: `approve openuds ${req.pending_id}`,
    });
    await this.send({ type: "auth_pending", pending_id: req.pending_id, expires_in_secs: this.#ctx.approvals.ttlSecs });
  }

  async #activate(mode: "token" | "approval"): Promise<void> {
    if (this.state === "closed") return;
    // spec 3 §8: `max_connections` counts operators, i.e. authenticated clients only (issue 14).
    const max = this.#ctx.config.max_connections;
    if (this.#ctx.authenticated() >= max) {
      this.#ctx.log.warn("OpenUDS connection refused: too many connections", { max });
      return this.refuse("TOO_MANY_CONNECTIONS", `max connections reached (${max})`);
    }
    this.#pending = null;
    this.state = "active";
    this.sessionId = crypto.randomUUID();
    this.#ctx.log.info("OpenUDS client authenticated", { client: this.clientName, mode, session: this.sessionId });
    this.#scheduleHeartbeat();
    await this.send({
      type: "authenticated",
      session_id: this.sessionId,
      server_version: this.#ctx.ops.context.version,
    }).catch(() => {});
  }

  /** `server.heartbeat` to every authenticated client, subscribed or not (extended.md §3.4). */
  #scheduleHeartbeat(): void {
    const { clock, config } = this.#ctx;
    const services = this.#ctx.ops.context;
    this.#heartbeat = clock.setTimeout(() => {
      if (this.state !== "active") return;
      this.#scheduleHeartbeat();
      // A reader that has not taken the last one yet does not get another queued.
      if (this.#beating) return;
      this.#beating = true;
      const data = {
        ...services.counts(),
        uptime_secs: services.uptimeSecs(),
        openuds_connections: this.#ctx.authenticated(),
      };
      void this.send({ type: "event", event_type: "server.heartbeat", sequence: null, timestamp: clock.now(), data })
        .catch(() => {})
        .finally(() => (this.#beating = false));
    }, config.heartbeat_interval_secs * 1000);
  }

  /** A command is the operation of that name, called as this session (spec 3 §4.5 envelope). */
  async #command(frame: Frame, id: Id): Promise<void> {
    const name = typeof frame.command === "string" ? frame.command : "";
    if (!name) return this.#error(id, "INVALID_ARGUMENT", "command required");
    if (CONTROL.has(name)) return this.#control(name, isFrame(frame.params) ? frame.params : {}, id);
    const { ops, clock } = this.#ctx;
    // `cli.execute` is recorded by the console as the line it runs.
    if (name !== "cli.execute") ops.context.inputs.record("openuds", this.sessionId!, name, clock.now());
    const after: (() => void)[] = [];
    const outcome = await ops.tryCall(name, frame.params, { kind: "openuds", session: this.sessionId! }, {
      defer: (fn) => after.push(fn),
    });
    const sent = outcome.ok
      ? this.send({ type: "response", id, ok: true, data: outcome.value })
      : this.#error(id, outcome.error.code, outcome.error.message, outcome.error.details);
    await sent.catch(() => {});
    for (const fn of after) fn();
  }

  #control(type: string, args: Frame, id: Id): Promise<void> {
    if (type === "ping") return this.send({ type: "pong", id });
    return this.send({ ...this.#feeds.control(type, args), id });
  }
}
