/**
 * How the proxy reaches the game server: an address (`--mp-server`) and a
 * dialer, TCP by default; tests may pass another.
 *
 * @module
 */

import type { ByteConn } from "../client/mod.ts";

/** Where the game server is (`--mp-server`). */
export interface ServerAddress {
  readonly hostname: string;
  readonly port: number;
}

/** Opens a byte connection to the game server; rejects when it cannot. */
export type Dialer = (address: ServerAddress, signal: AbortSignal) => Promise<ByteConn>;

/** TCP with Nagle off (small frames, latency matters). */
export async function tcpDialer({ hostname, port }: ServerAddress, signal: AbortSignal): Promise<ByteConn> {
  const conn = await Deno.connect({ hostname, port, transport: "tcp", signal });
  conn.setNoDelay(true);
  return conn;
}
