/**
 * A WebSocket test client that records every message and the close event.
 *
 * @module
 */

import { waitUntil } from "./describe.ts";

/** A connected test WebSocket. */
export class TestSocket {
  readonly socket: WebSocket;
  /** Binary messages received, in order. */
  readonly messages: Uint8Array[] = [];
  /** Close code and reason once closed. */
  closeEvent: { code: number; reason: string } | null = null;
  readonly closed: Promise<void>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => {
      this.messages.push(e.data instanceof ArrayBuffer ? new Uint8Array(e.data) : new TextEncoder().encode(e.data));
    };
    this.closed = new Promise((resolve) => {
      socket.onclose = (e) => {
        this.closeEvent = { code: e.code, reason: e.reason };
        resolve();
      };
    });
  }

  /** Opens `url` and waits for the connection (rejects if it fails). */
  static async open(url: string): Promise<TestSocket> {
    const ws = new TestSocket(new WebSocket(url));
    await new Promise<void>((resolve, reject) => {
      ws.socket.onopen = () => resolve();
      ws.socket.onerror = () => reject(new Error(`Cannot open WebSocket ${url}`));
    });
    return ws;
  }

  /** Waits until `n` messages have arrived. */
  async waitFor(n: number, what = `${n} messages`): Promise<Uint8Array[]> {
    await waitUntil(() => this.messages.length >= n || this.closeEvent !== null, what);
    return this.messages.slice(0, n);
  }

  /** Messages as JSON values (for `/api/ws`). */
  json(): unknown[] {
    const decoder = new TextDecoder();
    return this.messages.map((m) => JSON.parse(decoder.decode(m)));
  }

  /** Closes and waits for the close to complete. */
  async close(): Promise<void> {
    if (this.closeEvent === null) this.socket.close();
    await this.closed;
  }
}
