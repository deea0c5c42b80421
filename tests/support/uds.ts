/**
 * OpenUDS test support: a listener on a socket in a temporary directory over
 * a console harness, and a small client that reads frames in the background.
 *
 * @module
 */

import { equal } from "node:assert/strict";
import type { OpsDeps } from "../../src/ops/mod.ts";
import { defaultConfig } from "../../src/config/mod.ts";
import {
  encodeFrame,
  FrameReader,
  type OpenUdsConfig,
  type OpenUdsHandle,
  PendingApprovals,
  startOpenUds,
} from "../../src/uds/mod.ts";
import { type ConsoleHarness, startConsoleHarness } from "./console.ts";
import { type HarnessOptions, settle } from "./harness.ts";

/** A received frame. */
export type Frame = Record<string, unknown> & { type?: string };

/** A test client of the local socket. */
export class UdsClient {
  readonly frames: Frame[] = [];
  readonly #conn: Deno.UnixConn;
  #nextId = 1;
  /** Resolves when the server closed the connection. */
  readonly closed: Promise<void>;

  constructor(conn: Deno.UnixConn) {
    this.#conn = conn;
    const reader = new FrameReader(conn);
    this.closed = (async () => {
      try {
        for (let f = await reader.next(); f !== null; f = await reader.next()) this.frames.push(f as Frame);
      } catch {
        // Closed.
      }
    })();
  }

  /** Sends a value as one frame. */
  async send(value: unknown): Promise<void> {
    const bytes = encodeFrame(value);
    let rest = bytes;
    while (rest.length) rest = rest.subarray(await this.#conn.write(rest));
  }

  /** Sends raw bytes. */
  async raw(bytes: Uint8Array): Promise<void> {
    let rest = bytes;
    while (rest.length) rest = rest.subarray(await this.#conn.write(rest));
  }

  /** The next unread frame matching `pred` (earlier non-matching frames stay readable). */
  async next(pred: (f: Frame) => boolean = () => true, what = "frame"): Promise<Frame> {
    const end = performance.now() + 3000;
    for (;;) {
      const i = this.frames.findIndex(pred);
      if (i !== -1) {
        const [f] = this.frames.splice(i, 1);
        return f!;
      }
      if (performance.now() > end) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(this.frames)}`);
      await settle(1);
    }
  }

  /** Sends a command and waits for its response. */
  async request(command: string, params?: unknown): Promise<Frame> {
    const id = `r${this.#nextId++}`;
    await this.send({ type: "command", id, command, ...(params === undefined ? {} : { params }) });
    return await this.next((f) => f.type === "response" && f.id === id, `response to ${command}`);
  }

  /** Sends a command and returns `data`, asserting success. */
  async ok(command: string, params?: unknown): Promise<unknown> {
    const r = await this.request(command, params);
    equal(r.ok, true, `${command} failed: ${JSON.stringify(r.error)}`);
    return r.data;
  }

  /** Sends a command and returns `error`, asserting failure. */
  async fail(command: string, params?: unknown): Promise<{ code: string; message: string; output?: string[] }> {
    const r = await this.request(command, params);
    equal(r.ok, false, `${command} should fail: ${JSON.stringify(r.data)}`);
    return r.error as { code: string; message: string };
  }

  /** Frames of `type` received so far and not taken. */
  all(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }

  /** Closes the client. */
  async close(): Promise<void> {
    try {
      this.#conn.close();
    } catch {
      // Closed by the server.
    }
    await this.closed;
  }
}

/** A console harness with OpenUDS on a temporary socket. */
export interface UdsHarness {
  readonly c: ConsoleHarness;
  readonly uds: OpenUdsHandle;
  readonly dir: string;
  readonly path: string;
  readonly config: OpenUdsConfig;
  /** A raw connected client. */
  connect(): Promise<UdsClient>;
  /** A client authenticated with the token (token mode) or approved through the console (approval mode). */
  client(): Promise<UdsClient>;
  close(): Promise<void>;
}

/** Options of {@link startUdsHarness}. */
export interface UdsHarnessOptions extends HarnessOptions {
  openuds?: Partial<OpenUdsConfig>;
  deps?: Partial<OpsDeps>;
}

/** The token used by token-mode tests. */
export const TOKEN = "s3cret-token-for-tests";

/** Starts a server, the console registry and OpenUDS. */
export async function startUdsHarness(o: UdsHarnessOptions = {}): Promise<UdsHarness> {
  const dir = await Deno.makeTempDir({ prefix: "chorus-uds-" });
  const path = `${dir}/openuds.sock`;
  const config: OpenUdsConfig = {
    ...defaultConfig().openuds,
    enabled: true,
    socket_path: path,
    auth_token: TOKEN,
    ...o.openuds,
  };
  // The queue needs the harness clock, and the registry needs the queue: bind it late.
  const late: { q?: PendingApprovals } = {};
  const c = await startConsoleHarness({
    ...o,
    deps: { ...o.deps, approvals: { approve: (id) => late.q!.approve(id), pending: () => late.q!.pending() } },
  });
  const approvals = new PendingApprovals(c.h.clock, config.approval_ttl_secs);
  late.q = approvals;
  const uds = await startOpenUds({ ops: c.ops, config, approvals, logs: c.h.logs });
  const clients: UdsClient[] = [];
  const connect = async () => {
    const client = new UdsClient(await Deno.connect({ transport: "unix", path }));
    clients.push(client);
    return client;
  };
  return {
    c,
    uds,
    dir,
    path,
    config,
    connect,
    async client() {
      const client = await connect();
      if (config.auth_token) {
        await client.send({ type: "authenticate", token: config.auth_token, client_name: "test" });
      } else {
        await client.send({ type: "authenticate", client_name: "test" });
        const pending = await client.next((f) => f.type === "auth_pending", "auth_pending");
        equal((await c.run(`approve openuds ${pending.pending_id}`)).ok, true);
      }
      const auth = await client.next((f) => f.type === "authenticated" || f.type === "auth_error", "authenticated");
      equal(auth.type, "authenticated", JSON.stringify(auth));
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await uds.close();
      await c.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
