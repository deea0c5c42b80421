/**
 * A scripted fake Phira server for tests: listens on 127.0.0.1 port 0, reads
 * the version byte and client frames, answers through a script, and can push
 * unsolicited frames or raw bytes. Everything it opens is released by
 * {@link FakeServer.close}, so Deno's sanitizers pass.
 *
 * @module
 */

import {
  type ClientCommand,
  decodeClientCommand,
  encodeServerCommand,
  err,
  FrameDecoder,
  ok,
  type ServerCommand,
  type UserInfo,
} from "../protocol/mod.ts";

/** Reply types whose payload is `SResult<()>`. */
export type UnitReplyType =
  | "Chat"
  | "CreateRoom"
  | "LeaveRoom"
  | "LockRoom"
  | "CycleRoom"
  | "SelectChart"
  | "RequestStart"
  | "Ready"
  | "CancelReady"
  | "Played"
  | "Abort";

/** Handles one client command; may send any number of frames through `conn`. */
export type Script = (cmd: ClientCommand, conn: FakeConnection) => void | Promise<void>;

/** Options of {@link FakeServer.listen}. */
export interface FakeServerOptions {
  /** Called for every client command in order (awaited before the next one). */
  script?: Script;
  /** Answer `Ping` with `Pong` before calling the script (default true). */
  autoPong?: boolean;
}

/** `Ok(())` reply of a unit reply type. */
export function okReply(type: UnitReplyType): ServerCommand {
  return { type, result: ok(null) };
}

/** `Err(reason)` reply of a unit reply type. */
export function errReply(type: UnitReplyType, reason: string): ServerCommand {
  return { type, result: err(reason) };
}

/** A script answering every request with `Ok`: authentication as `user`, joins as a lone member. */
export function okScript(user: UserInfo): Script {
  return (cmd, conn) => {
    switch (cmd.type) {
      case "Authenticate":
      case "ConsoleAuthenticate":
      case "RoomMonitorAuthenticate":
      case "GameMonitorAuthenticate":
        return conn.send({ type: "Authenticate", result: ok([user, null]) });
      case "JoinRoom":
        return conn.send({
          type: "JoinRoom",
          result: ok({ state: { type: "SelectChart", chart: null }, users: [user], live: cmd.monitor }),
        });
      case "QueryRoomInfo":
        return conn.send({ type: "RoomResponse", result: ok([new Map(), new Map()]) });
      case "Ping":
        return conn.send({ type: "Pong" });
      case "Touches":
      case "Judges":
        return;
      default:
        return conn.send(okReply(cmd.type));
    }
  };
}

/** The server side of one client connection. */
export class FakeConnection {
  /** Every command received, in order. */
  readonly commands: ClientCommand[] = [];
  /** Resolves once the client's read loop on this side ends (EOF, error or close). */
  readonly done: Promise<void>;
  /** The first failure (bad frame, script error), if any. */
  error: unknown = null;
  readonly #conn: Deno.Conn;
  readonly #options: FakeServerOptions;
  readonly #unread: ClientCommand[] = [];
  readonly #waiters: ((cmd: ClientCommand) => void)[] = [];
  #version: number | null = null;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  /** Wraps an accepted connection and starts reading. */
  constructor(conn: Deno.Conn, options: FakeServerOptions) {
    this.#conn = conn;
    this.#options = options;
    this.done = this.#readLoop();
  }

  /** The version byte the client sent, once received. */
  get version(): number | null {
    return this.#version;
  }

  /** The next command not yet taken by this method; fails after `timeoutMs` of real time. */
  nextCommand(timeoutMs = 2000): Promise<ClientCommand> {
    const cmd = this.#unread.shift();
    if (cmd) return Promise.resolve(cmd);
    return new Promise((resolve, reject) => {
      const waiter = (c: ClientCommand) => {
        clearTimeout(timer);
        resolve(c);
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`Cannot get the next client command: none within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Encodes and sends a server command after everything sent before. */
  send(cmd: ServerCommand): void {
    this.sendRaw(encodeServerCommand(cmd));
  }

  /** Sends raw bytes after everything sent before. */
  sendRaw(bytes: Uint8Array): void {
    this.#writing = this.#writing.then(async () => {
      if (this.#closed) return;
      for (let at = 0; at < bytes.length;) at += await this.#conn.write(bytes.subarray(at));
    }).catch((e) => {
      this.error ??= e;
    });
  }

  /** Resolves once everything sent so far is written. */
  flush(): Promise<void> {
    return this.#writing;
  }

  /** Writes what is queued, then closes the socket (the client sees EOF). */
  async close(): Promise<void> {
    await this.#writing;
    this.#shut();
    await this.done;
  }

  #shut(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
  }

  async #readLoop(): Promise<void> {
    const buf = new Uint8Array(4096);
    const decoder = new FrameDecoder();
    try {
      for (;;) {
        const n = await this.#conn.read(buf);
        if (n === null) break;
        let chunk = buf.subarray(0, n);
        if (this.#version === null) {
          this.#version = chunk[0]!;
          chunk = chunk.subarray(1);
        }
        decoder.push(chunk);
        for (let p = decoder.next(); p; p = decoder.next()) await this.#handle(decodeClientCommand(p));
      }
    } catch (e) {
      if (!this.#closed) this.error ??= e;
    }
    await this.#writing;
    this.#shut();
  }

  async #handle(cmd: ClientCommand): Promise<void> {
    this.commands.push(cmd);
    const waiter = this.#waiters.shift();
    if (waiter) waiter(cmd);
    else this.#unread.push(cmd);
    if (cmd.type === "Ping" && this.#options.autoPong !== false) return this.send({ type: "Pong" });
    await this.#options.script?.(cmd, this);
  }
}

/** A listening fake server. */
export class FakeServer {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** Every accepted connection, in order. */
  readonly connections: FakeConnection[] = [];
  readonly #listener: Deno.TcpListener;
  readonly #accepting: Promise<void>;
  readonly #waiters: ((conn: FakeConnection) => void)[] = [];
  #taken = 0;

  private constructor(options: FakeServerOptions) {
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.port = this.#listener.addr.port;
    this.#accepting = this.#acceptLoop(options);
  }

  /** Starts listening on 127.0.0.1 at a free port. */
  static listen(options: FakeServerOptions = {}): FakeServer {
    return new FakeServer(options);
  }

  /** The next accepted connection not yet returned by this method. */
  accept(): Promise<FakeConnection> {
    const conn = this.connections[this.#taken];
    if (conn) {
      this.#taken++;
      return Promise.resolve(conn);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Stops listening, closes every connection and waits until all is released. */
  async close(): Promise<void> {
    try {
      this.#listener.close();
    } catch {
      // Already closed.
    }
    await this.#accepting;
    await Promise.all(this.connections.map((c) => c.close()));
  }

  async #acceptLoop(options: FakeServerOptions): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        conn.setNoDelay(true);
        const fake = new FakeConnection(conn, options);
        this.connections.push(fake);
        const waiter = this.#waiters.shift();
        if (waiter) {
          this.#taken++;
          waiter(fake);
        }
      }
    } catch {
      // The listener was closed.
    }
  }
}
