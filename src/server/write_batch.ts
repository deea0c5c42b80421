/**
 * Coalesces a socket's writes of one event-loop turn (issue 15): the relay
 * sends every `Touches`/`Judges` frame of a room to its monitors one frame
 * at a time, and a write to a socket costs a system call in which loopback
 * TCP delivers the bytes too -- at 1,000 rooms the biggest single item on the
 * main thread (BENCHMARKS.md). A socket's first frame of a turn corks it;
 * later frames of the same turn join its buffer, and once the turn's I/O is
 * handled (`setImmediate`) every corked socket is uncorked: one write for
 * all of them. Frames are never held longer than the turn that queued them,
 * nor reordered; each frame's completion callback still runs once written.
 *
 * @module
 */

import type net from "node:net";
import { setImmediate } from "node:timers";

/** One per listener: the sockets corked in the current turn, uncorked together at its end. */
export class WriteBatch {
  #corked: net.Socket[] = [];
  #scheduled = false;
  readonly #uncork = () => this.#flush();

  /** Writes `frame` to `socket`, coalesced with the socket's other frames of this turn. */
  write(socket: net.Socket, frame: Uint8Array, done: (error?: Error | null) => void): void {
    if (!socket.writableCorked) {
      socket.cork();
      this.#corked.push(socket);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#uncork);
      }
    }
    socket.write(frame, done);
  }

  /** Sockets corked and not yet written (tests). */
  get pending(): number {
    return this.#corked.length;
  }

  #flush(): void {
    this.#scheduled = false;
    const corked = this.#corked;
    this.#corked = [];
    for (const socket of corked) {
      // A socket destroyed meanwhile has dropped its buffer; uncork only those still open.
      if (!socket.destroyed) { while (socket.writableCorked) socket.uncork(); }
    }
  }
}
