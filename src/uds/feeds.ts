/**
 * One OpenUDS connection's event subscriptions and streams (spec 3 §4.5,
 * §6.4): `subscribe`/`unsubscribe` patterns over the domain events, and
 * `subscribe_stream` for `touches`, `judges` and `logs` with an optional
 * room filter. Each feed reads from its own buffer of `event_buffer_size`
 * items; a slow reader loses the oldest and is told with
 * `{type: "lagged", source, skipped}`. Publishing never waits for a client.
 *
 * @module
 */

import type { DomainEvent, EventBus, Subscription } from "../events/mod.ts";
import type { LogHub, LogRecord } from "../util/log.ts";
import { matches, patternProblem, toUdsEvent, UDS_EVENT_TYPES } from "./events.ts";
import { BoundedQueue, type QueueItem } from "./queue.ts";

/** Streams of `subscribe_stream`. */
export const STREAMS = ["touches", "judges", "logs"] as const;

/** A stream name. */
export type StreamName = (typeof STREAMS)[number];

type Reader<T> = { next(): Promise<QueueItem<T> | null>; close(): void };

const EVENT_TYPES: ReadonlySet<string> = new Set(UDS_EVENT_TYPES);

/** The frame of an event. */
export function eventFrame(e: DomainEvent): Record<string, unknown> | null {
  const ev = toUdsEvent(e);
  return ev ? { type: "event", event_type: ev.event_type, sequence: e.seq, timestamp: e.time, data: ev.data } : null;
}

/** The frame of a touches or judges event (spec 3 §6.4 `stream.touches`, `stream.judges`). */
export function telemetryFrame(e: DomainEvent): Record<string, unknown> | null {
  const base = (stream: string) => ({
    type: "stream",
    stream,
    user_id: (e as { user: number }).user,
    sequence: e.seq,
    room: (e as { room: string }).room,
    round: (e as { round: string | null }).round,
    timestamp: e.time,
  });
  if (e.kind === "touches") return { ...base("touches"), frames: e.frames };
  if (e.kind === "judges") return { ...base("judges"), events: e.judges };
  return null;
}

/** The frame of a log record. */
export function logFrame(r: LogRecord): Record<string, unknown> {
  const room = typeof r.fields.room === "string" ? r.fields.room : null;
  return {
    type: "stream",
    stream: "logs",
    sequence: r.seq,
    timestamp: r.time,
    level: r.level,
    msg: r.msg,
    room,
    line: r.line,
  };
}

/** The feeds of one connection. */
export class Feeds {
  readonly #bus: EventBus;
  readonly #logs: LogHub | undefined;
  readonly #capacity: number;
  readonly #send: (frame: Record<string, unknown>) => Promise<void>;
  readonly #patterns: string[] = [];
  #events: Subscription | null = null;
  readonly #streams = new Map<StreamName, { reader: Reader<unknown>; room: string | null }>();
  #closed = false;

  constructor(
    bus: EventBus,
    logs: LogHub | undefined,
    capacity: number,
    send: (frame: Record<string, unknown>) => Promise<void>,
  ) {
    this.#bus = bus;
    this.#logs = logs;
    this.#capacity = capacity;
    this.#send = send;
  }

  /** Active patterns, in the order they were added. */
  get patterns(): readonly string[] {
    return this.#patterns;
  }

  /** Adds patterns (already validated); returns the active list. */
  subscribe(patterns: readonly string[]): string[] {
    for (const p of patterns) if (!this.#patterns.includes(p)) this.#patterns.push(p);
    if (!this.#events && this.#patterns.length && !this.#closed) {
      // Default kinds = every domain kind except touches/judges; the filter runs at publish time,
      // so events nobody here wants never take buffer space.
      const sub = this.#bus.subscribe({
        capacity: this.#capacity,
        filter: (e) => EVENT_TYPES.has(e.kind) && this.#patterns.some((p) => matches(p, e.kind)),
      });
      this.#events = sub;
      void this.#pump(sub, "events", (e) => eventFrame(e as DomainEvent));
    }
    return [...this.#patterns];
  }

  /** Removes patterns; returns those removed. */
  unsubscribe(patterns: readonly string[]): string[] {
    const removed = patterns.filter((p) => this.#patterns.includes(p));
    for (const p of removed) this.#patterns.splice(this.#patterns.indexOf(p), 1);
    if (!this.#patterns.length) {
      this.#events?.close();
      this.#events = null;
    }
    return removed;
  }

  /** Starts (or restarts with a new room filter) a stream. */
  subscribeStream(stream: StreamName, room: string | null): void {
    if (this.#closed) return;
    this.#streams.get(stream)?.reader.close();
    let reader: Reader<unknown>;
    if (stream === "logs") {
      const queue = new BoundedQueue<LogRecord>(this.#capacity);
      const stop = this.#logs?.subscribe((r) => {
        if (room === null || r.fields.room === room) queue.push(r);
      });
      reader = {
        next: () => queue.next(),
        close: () => {
          stop?.();
          queue.close();
        },
      };
      void this.#pump(reader, "logs", (r) => logFrame(r as LogRecord));
    } else {
      const sub = this.#bus.subscribe({
        kinds: [stream],
        capacity: this.#capacity,
        ...(room === null ? {} : { filter: (e: DomainEvent) => (e as { room?: string }).room === room }),
      });
      reader = sub as Reader<unknown>;
      void this.#pump(reader, stream, (e) => telemetryFrame(e as DomainEvent));
    }
    this.#streams.set(stream, { reader, room });
  }

  /** Stops a stream; false when it was not running. */
  unsubscribeStream(stream: StreamName): boolean {
    const s = this.#streams.get(stream);
    if (!s) return false;
    s.reader.close();
    this.#streams.delete(stream);
    return true;
  }

  /**
   * Answers `subscribe`, `unsubscribe` (`event_types`), `subscribe_stream`
   * and `unsubscribe_stream` (`stream`, `room_id?`), given as frames or as
   * commands: the answer frame, or an error response.
   */
  control(type: string, args: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const error = (message: string) => ({ type: "response", ok: false, error: { code: "INVALID_ARGUMENT", message } });
    if (type === "subscribe" || type === "unsubscribe") {
      const list = args.event_types;
      if (!Array.isArray(list) || !list.length) return error("event_types: expected a non-empty list");
      const problem = list.map(patternProblem).find((p) => p !== null);
      if (problem) return error(`event_types: ${problem}`);
      if (type === "subscribe") return { type: "subscribed", active: this.subscribe(list as string[]) };
      const removed = this.unsubscribe(list as string[]);
      return { type: "unsubscribed", removed, active: [...this.#patterns] };
    }
    const stream = args.stream;
    if (typeof stream !== "string" || !(STREAMS as readonly string[]).includes(stream)) {
      return error(`stream: expected one of ${STREAMS.join(", ")}`);
    }
    if (type === "unsubscribe_stream") {
      this.unsubscribeStream(stream as StreamName);
      return { type: "stream_unsubscribed", stream };
    }
    const room = args.room_id ?? null;
    if (room !== null && typeof room !== "string") return error("room_id: expected a room id");
    this.subscribeStream(stream as StreamName, room);
    return { type: "stream_subscribed", stream, room_id: room };
  }

  /** Stops everything. */
  close(): void {
    this.#closed = true;
    this.#events?.close();
    this.#events = null;
    for (const s of this.#streams.values()) s.reader.close();
    this.#streams.clear();
  }

  async #pump(
    reader: Reader<unknown>,
    source: string,
    render: (item: unknown) => Record<string, unknown> | null,
  ): Promise<void> {
    try {
      for (let item = await reader.next(); item; item = await reader.next()) {
        const frame = item.type === "lagged" ? { type: "lagged", source, skipped: item.skipped } : render(item.event);
        if (frame) await this.#send(frame);
      }
    } catch {
      // The connection broke; it closes the feeds.
    }
  }
}
