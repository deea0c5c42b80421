/**
 * Types shared by the client modules: options, events, violations, stats.
 *
 * @module
 */

import type {
  ClientCommand,
  ClientCommandType,
  Message,
  REPLY_OF,
  REPLY_TYPES,
  ServerCommand,
  ServerCommandOf,
} from "../protocol/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { ViolationKind } from "./room_model.ts";

/** Server command types that answer a request (Pong aside). */
export type ReplyType = (typeof REPLY_TYPES)[number];

/** A pushed server command: everything that is not a reply (Pong included among replies). */
export type ClientEvent = Exclude<ServerCommand, { type: ReplyType | "Pong" }>;
/** Type name of a {@link ClientEvent}. */
export type ClientEventType = ClientEvent["type"];
/** The event of one type. */
export type ClientEventOf<K extends ClientEventType> = Extract<ClientEvent, { type: K }>;
/** The room message of one type. */
export type MessageOf<K extends Message["type"]> = Extract<Message, { type: K }>;

/** Client command types that get a reply. */
export type RequestType = {
  [K in ClientCommandType]: (typeof REPLY_OF)[K] extends null ? never : K;
}[ClientCommandType];
/** A client command that gets a reply. */
export type RequestCommand = Extract<ClientCommand, { type: RequestType }>;
/** The reply command answering request `C`. */
export type ReplyTo<C extends RequestCommand> = ServerCommandOf<NonNullable<(typeof REPLY_OF)[C["type"]]>>;

/** A point where the official client would have crashed (protocol.md §5.5). */
export interface Violation {
  /** What kind of rule the server broke. */
  readonly kind: ViolationKind;
  /** Position of the offending command among all commands received (0-based). */
  readonly seq: number;
  /** The offending command. */
  readonly command: ServerCommand;
  /** A sentence for test failure output. */
  readonly detail: string;
}

/** Counters of one client. */
export interface ClientStats {
  /** Frames queued for sending (version byte excluded). */
  readonly sent: number;
  /** Server commands received. */
  readonly received: number;
  /** Requests waiting for their reply. */
  readonly pending: number;
  /** Replies that arrived after their request had timed out (dropped, as the official client does). */
  readonly lateReplies: number;
  /** Pongs with no Ping outstanding (harmless for the official client). */
  readonly unsolicitedPongs: number;
  /** Automatic pings that got no Pong in time. */
  readonly pingTimeouts: number;
  /** Events dropped from the stream buffer because it was full or disabled. */
  readonly droppedEvents: number;
  /** Commands dropped from the `received` log because it was full or disabled. */
  readonly droppedLog: number;
  /** Violations seen (the `violations` list keeps the first 1000). */
  readonly violations: number;
}

/** Options of a client. All are optional. */
export interface ClientOptions {
  /** Version byte sent first (default 1, protocol.md §1). */
  version?: number | undefined;
  /** Reply timeout of requests, ms (default 7000 like the official client). */
  requestTimeoutMs?: number | undefined;
  /** Interval of automatic pings, ms (default 3000); 0 disables them. */
  pingIntervalMs?: number | undefined;
  /** Pong timeout of pings, ms (default 2000, the official heartbeat timeout). */
  pingTimeoutMs?: number | undefined;
  /** Default timeout of `next`/`waitFor`, ms (default 7000). */
  waitTimeoutMs?: number | undefined;
  /** Unconsumed events kept for the stream, oldest dropped first (default 10,000; 0 keeps none). */
  eventBufferLimit?: number | undefined;
  /** Commands kept in the `received` log, oldest dropped first (default 10,000; 0 disables the log). */
  logLimit?: number | undefined;
  /** Read buffer size in bytes (default 4096). */
  readBufferSize?: number | undefined;
  /** Unwritten bytes tolerated before the client gives up with an `overflow` error (default 8 MiB). */
  maxQueuedBytes?: number | undefined;
  /** Timer source (default a `SystemClock`). */
  clock?: Clock | undefined;
  /** Where violations and unexpected closes are reported (default: nowhere). */
  logger?: Logger | undefined;
  /** Called with every pushed event as it arrives (before buffering). */
  onEvent?: ((event: ClientEvent) => void) | undefined;
  /**
   * Called with every command received, replies and Pongs included, in wire
   * order and before the reply settles its request: a reply's effect can be
   * applied exactly between the pushes that came before and after it.
   */
  onReceive?: ((cmd: ServerCommand) => void) | undefined;
  /** Called with the round-trip time of every answered ping, ms. */
  onRtt?: ((rttMs: number) => void) | undefined;
  /** Called with every violation as it is detected. */
  onViolation?: ((violation: Violation) => void) | undefined;
}
