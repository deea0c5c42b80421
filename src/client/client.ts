/**
 * {@link PhiraClient}: one method per protocol command, the modelled room
 * state, and the event stream; {@link connect} opens one over TCP.
 *
 * Style: the named methods (`joinRoom`, `ready`, ...) resolve with the `Ok`
 * value and reject with a {@link ClientError} -- code `rejected` with the
 * server's exact `Err` string in `reason` -- while `request(cmd)` resolves
 * with the raw reply so its `result` can be inspected as a `Result`.
 *
 * @module
 */

import { PROTOCOL_VERSION } from "../protocol/mod.ts";
import type {
  ClientRoomState,
  JoinRoomResponse,
  JudgeEvent,
  Message,
  Result,
  RoomData,
  TouchFrame,
  UserInfo,
} from "../protocol/mod.ts";
import { ClientCore } from "./client_core.ts";
import { actionOf, ClientError } from "./errors.ts";
import type {
  ClientEvent,
  ClientEventOf,
  ClientEventType,
  ClientOptions,
  MessageOf,
  ReplyTo,
  RequestCommand,
} from "./types.ts";

/** Where to connect, plus {@link ClientOptions}. */
export interface ConnectOptions extends ClientOptions {
  /** Server host (default `127.0.0.1`). */
  host?: string | undefined;
  /** Server port. */
  port: number;
  /** Gives up connecting when aborted (a TCP connect to a saturated listener can wait minutes). */
  signal?: AbortSignal | undefined;
}

/** What a successful authentication yields: your user, and the room you are still in (reconnect). */
export interface AuthResult {
  /** Your own user info. */
  readonly user: UserInfo;
  /** The room the server still has you in, if any. */
  readonly room: ClientRoomState | null;
}

/** The room monitor's view of the server (`RoomResponse`, protocol.md §3.5). */
export interface RoomInfo {
  /** Every room by id. */
  readonly rooms: Map<string, RoomData>;
  /** Room id of every player in a room. */
  readonly users: Map<number, string>;
}

type OkOf<R> = R extends { result: Result<infer T, string> } ? T : never;
type ResultRequest = Exclude<RequestCommand, { type: "Ping" }>;

/** Opens a TCP connection (`TCP_NODELAY` on) and returns a client that has sent its version byte. */
export async function connect(options: ConnectOptions): Promise<PhiraClient> {
  const { host, port, signal } = options;
  const conn = await Deno.connect({
    hostname: host ?? "127.0.0.1",
    port,
    transport: "tcp",
    ...(signal ? { signal } : {}),
  });
  conn.setNoDelay(true);
  return new PhiraClient(conn, { version: PROTOCOL_VERSION, ...options });
}

/** A Phira multiplayer client modelled on the official `phira-mp-client`. */
export class PhiraClient extends ClientCore implements AsyncIterable<ClientEvent> {
  /** Your user info after a successful authentication. */
  get me(): UserInfo | null {
    return this.model.me;
  }
  /** The modelled room state (do not mutate); null outside a room. */
  get roomState(): Readonly<ClientRoomState> | null {
    return this.model.room;
  }
  /** Id of the modelled room. */
  get roomId(): string | null {
    return this.model.room?.id ?? null;
  }
  /** Whether you are the host; null outside a room. */
  get isHost(): boolean | null {
    return this.model.room?.is_host ?? null;
  }
  /** Whether you are ready; null outside a room. */
  get isReady(): boolean | null {
    return this.model.room?.is_ready ?? null;
  }
  /** Whether the room is live (has had a monitor); null outside a room. */
  get live(): boolean | null {
    return this.model.room?.live ?? null;
  }
  /** Whether the room is locked as far as the client knows; null outside a room. */
  get locked(): boolean | null {
    return this.model.room?.locked ?? null;
  }
  /** Whether host cycling is on as far as the client knows; null outside a room. */
  get cycle(): boolean | null {
    return this.model.room?.cycle ?? null;
  }
  /** Users of the modelled room by id (players and monitors); null outside a room. */
  get users(): ReadonlyMap<number, UserInfo> | null {
    return this.model.room?.users ?? null;
  }

  /** Logs in with a Phira token; rejects with the server's `Err` string. */
  authenticate(token: string): Promise<AuthResult> {
    return this.#auth({ type: "Authenticate", token });
  }
  /** Logs in as a console session (fork extension, protocol.md §3.5). */
  consoleAuthenticate(token: string): Promise<AuthResult> {
    return this.#auth({ type: "ConsoleAuthenticate", token });
  }
  /** Logs in as the room monitor with the derived 64-byte key (fork extension). */
  roomMonitorAuthenticate(key: Uint8Array): Promise<AuthResult> {
    return this.#auth({ type: "RoomMonitorAuthenticate", key });
  }
  /** Logs in as a game monitor (fork extension). */
  gameMonitorAuthenticate(token: string): Promise<AuthResult> {
    return this.#auth({ type: "GameMonitorAuthenticate", token });
  }
  /** Asks for all rooms (room-monitor sessions only, fork extension). */
  async queryRoomInfo(): Promise<RoomInfo> {
    const [rooms, users] = await this.#ok({ type: "QueryRoomInfo" });
    return { rooms, users };
  }

  /** Sends a chat message to the room. */
  chat(message: string): Promise<void> {
    return this.#unit({ type: "Chat", message });
  }
  /** Creates room `id`; on success the client models itself as its host. */
  createRoom(id: string): Promise<void> {
    return this.#unit({ type: "CreateRoom", id });
  }
  /** Joins room `id` (as a monitor when `monitor`); resolves with the server's room snapshot. */
  joinRoom(id: string, monitor = false): Promise<JoinRoomResponse> {
    return this.#ok({ type: "JoinRoom", id, monitor });
  }
  /** Leaves the room. */
  leaveRoom(): Promise<void> {
    return this.#unit({ type: "LeaveRoom" });
  }
  /** Locks or unlocks the room (host only). */
  lockRoom(lock: boolean): Promise<void> {
    return this.#unit({ type: "LockRoom", lock });
  }
  /** Turns host cycling on or off (host only). */
  cycleRoom(cycle: boolean): Promise<void> {
    return this.#unit({ type: "CycleRoom", cycle });
  }
  /** Selects chart `id` (host only). */
  selectChart(id: number): Promise<void> {
    return this.#unit({ type: "SelectChart", id });
  }
  /** Starts the ready phase (host only). */
  requestStart(): Promise<void> {
    return this.#unit({ type: "RequestStart" });
  }
  /** Marks yourself ready. */
  ready(): Promise<void> {
    return this.#unit({ type: "Ready" });
  }
  /** Withdraws readiness (the host cancels the game). */
  cancelReady(): Promise<void> {
    return this.#unit({ type: "CancelReady" });
  }
  /** Reports an uploaded record. */
  played(recordId: number): Promise<void> {
    return this.#unit({ type: "Played", id: recordId });
  }
  /** Aborts the current game. */
  abort(): Promise<void> {
    return this.#unit({ type: "Abort" });
  }
  /** Sends touch frames (no reply). Returns false once the client is closing. */
  touches(frames: TouchFrame[]): boolean {
    return this.sendCommand({ type: "Touches", frames });
  }
  /** Sends judge events (no reply). Returns false once the client is closing. */
  judges(judges: JudgeEvent[]): boolean {
    return this.sendCommand({ type: "Judges", judges });
  }

  /**
   * Takes the first buffered or future event matching `predicate` (any event
   * when omitted), leaving other events buffered. Rejects with a `timeout`
   * {@link ClientError} after `timeoutMs`, or with the close error.
   */
  next(predicate?: (event: ClientEvent) => boolean, timeoutMs: number = this.waitTimeoutMs): Promise<ClientEvent> {
    return this.events.next(predicate, timeoutMs);
  }
  /** Takes the first event of `type` (matching `predicate`), like {@link next}. */
  waitFor<K extends ClientEventType>(
    type: K,
    predicate?: (event: ClientEventOf<K>) => boolean,
    timeoutMs: number = this.waitTimeoutMs,
  ): Promise<ClientEventOf<K>> {
    const match = (e: ClientEvent) => e.type === type && (!predicate || predicate(e as ClientEventOf<K>));
    return this.events.next(match, timeoutMs, `wait for ${type}`) as Promise<ClientEventOf<K>>;
  }
  /** Takes the first `Message` event of message type `type` (matching `predicate`) and returns the message. */
  async waitForMessage<K extends Message["type"]>(
    type: K,
    predicate?: (message: MessageOf<K>) => boolean,
    timeoutMs: number = this.waitTimeoutMs,
  ): Promise<MessageOf<K>> {
    const match = (e: ClientEvent) =>
      e.type === "Message" && e.message.type === type && (!predicate || predicate(e.message as MessageOf<K>));
    const event = await this.events.next(match, timeoutMs, `wait for Message::${type}`);
    return (event as ClientEventOf<"Message">).message as MessageOf<K>;
  }
  /** Removes and returns every buffered event, oldest first. */
  drainEvents(): ClientEvent[] {
    return this.events.drain();
  }
  /** Events buffered and not yet taken. */
  get bufferedEvents(): number {
    return this.events.length;
  }
  /** Iterates events in order until the client closes (throws on protocol and I/O errors). */
  [Symbol.asyncIterator](): AsyncIterator<ClientEvent> {
    return this.events.iterate();
  }

  async #auth(cmd: Extract<ResultRequest, { type: `${string}Authenticate` }>): Promise<AuthResult> {
    const [user, room] = await this.#ok(cmd);
    return { user, room };
  }

  async #unit(cmd: ResultRequest): Promise<void> {
    await this.#ok(cmd);
  }

  async #ok<C extends ResultRequest>(cmd: C): Promise<OkOf<ReplyTo<C>>> {
    const reply = await this.request(cmd);
    const result = (reply as unknown as { result: Result<OkOf<ReplyTo<C>>> }).result;
    if (result.ok) return result.value;
    throw new ClientError("rejected", actionOf(cmd.type), result.error, { command: cmd.type });
  }
}
