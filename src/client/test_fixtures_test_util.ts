/**
 * Shared fixtures of the client tests: users, a connected client/fake-server
 * pair that cleans up after itself, and a stream barrier.
 *
 * @module
 */

import type { UserInfo } from "../protocol/mod.ts";
import { connect, type PhiraClient } from "./client.ts";
import { FakeConnection, FakeServer, type FakeServerOptions } from "./fake_server_test_util.ts";
import type { ClientOptions } from "./types.ts";

/** Alice (protocol.md §4). */
export const ALICE: UserInfo = { id: 100, name: "Alice", monitor: false };
/** Bob (protocol.md §4). */
export const BOB: UserInfo = { id: 200, name: "Bob", monitor: false };
/** A 32-byte token (protocol.md §4). */
export const TOKEN = "0123456789abcdef0123456789abcdef";

/** A client connected to a fake server; `await using` closes both. */
export interface Pair extends AsyncDisposable {
  readonly server: FakeServer;
  readonly conn: FakeConnection;
  readonly client: PhiraClient;
}

/** Starts a fake server and connects a client to it (automatic pings off unless `clientOptions` says so). */
export async function pair(serverOptions: FakeServerOptions = {}, clientOptions: ClientOptions = {}): Promise<Pair> {
  const server = FakeServer.listen(serverOptions);
  const client = await connect({ port: server.port, pingIntervalMs: 0, ...clientOptions });
  const conn = await server.accept();
  return {
    server,
    conn,
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

/**
 * Pushes a `UserVisit` marker and waits until the client has processed it,
 * so everything sent before it has been processed too.
 */
export async function barrier(conn: FakeConnection, client: PhiraClient, marker = -424242): Promise<void> {
  conn.send({ type: "UserVisit", user: marker });
  await client.waitFor("UserVisit", (e) => e.user === marker);
}
