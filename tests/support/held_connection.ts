/**
 * A virtual client connection for tests of logins still pending (spec 3
 * §3.2): it sends a login, then holds every server write until released,
 * so its `Authenticate(Ok)` stays unflushed for as long as a test needs.
 * Everything the server wrote is decoded for assertions.
 *
 * @module
 */

import { decodeServerCommand, encodeClientCommand, FrameDecoder, type ServerCommand } from "../../src/protocol/mod.ts";
import type { Transport } from "../../src/session/session.ts";
import { describe } from "./describe.ts";
import { devToken } from "./harness.ts";

/** The bytes a client sends to log in as dev user `id`: version 1, then `Authenticate`. */
export function loginBytes(id: number): Uint8Array {
  return new Uint8Array([1, ...encodeClientCommand({ type: "Authenticate", token: devToken(id) })]);
}

/** Sends a login, then holds the server's writes until {@link release}. */
export class HeldConnection implements Transport {
  #input: Uint8Array | null;
  #hungUp = false;
  #wake: (() => void) | null = null;
  #held: (() => void)[] = [];
  #holding = true;
  #written: number[] = [];

  constructor(input: Uint8Array) {
    this.#input = input;
  }

  async read(p: Uint8Array): Promise<number | null> {
    const input = this.#input;
    if (input) {
      this.#input = null;
      p.set(input);
      return input.length;
    }
    if (!this.#hungUp) await new Promise<void>((resolve) => (this.#wake = resolve));
    return null;
  }

  /** Bytes the server offered to write, completed or held. */
  bytesOffered = 0;

  write(p: Uint8Array): Promise<number> {
    this.bytesOffered += p.length;
    const bytes = [...p];
    const accept = () => this.#written.push(...bytes);
    if (!this.#holding) {
      accept();
      return Promise.resolve(p.length);
    }
    return new Promise((resolve) => this.#held.push(() => (accept(), resolve(p.length))));
  }

  close(): void {
    this.hangUp();
  }

  /** The peer goes away: the server's next read sees end of input. */
  hangUp(): void {
    this.#hungUp = true;
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /** Completes the held writes and every later one. */
  release(): void {
    this.#holding = false;
    for (const done of this.#held.splice(0)) done();
  }

  /** Every command the server's completed writes carried, in order. */
  commands(): ServerCommand[] {
    const decoder = new FrameDecoder(1 << 20);
    decoder.push(new Uint8Array(this.#written));
    const out: ServerCommand[] = [];
    for (let p = decoder.next(); p; p = decoder.next()) out.push(decodeServerCommand(p));
    return out;
  }

  /** {@link commands} rendered like scenario logs (`Touches(200)`, `Authenticate(Ok)`). */
  log(): string[] {
    return this.commands().map(describe);
  }
}
