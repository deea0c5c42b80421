/**
 * Follows a log file in real time (`tail -F`): polls it every
 * `poll_interval_ms` on the injected clock, hands every complete line on,
 * and survives what log files go through (spec 2 §4.4 behaviour 2):
 *
 * - rotation (the path now names another file, by inode): the old file is
 *   read to its end first, then the new one from its start;
 * - truncation (the file got shorter than what was read): read again from
 *   the start;
 * - a missing file: tried again every 5 s (as the original did);
 * - a line longer than `maxLineBytes`: skipped up to its end, not buffered.
 *
 * A file present at start is read from its end unless `fromStart` (the
 * original started at the end, so rooms created before it started are not
 * seen); a file that appears later is read whole.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

/** Options of {@link LogFollower}. */
export interface LogFollowerOptions {
  readonly path: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Called with every complete line (without the line break). */
  readonly onLine: (line: string) => void;
  readonly pollMs?: number;
  readonly fromStart?: boolean;
  /** Wait before trying a missing file again (default 5000). */
  readonly missingRetryMs?: number;
  readonly maxLineBytes?: number;
  /** Most bytes read in one poll, so a huge backlog does not hold the event loop (default 4 MiB). */
  readonly maxBytesPerPoll?: number;
}

const CHUNK = 64 * 1024;

/** The follower. */
export class LogFollower {
  readonly #o: Required<LogFollowerOptions>;
  #file: Deno.FsFile | null = null;
  #ino: number | null = null;
  #pos = 0;
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  #skipping = false;
  #opened = false;
  #missingLogged = false;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | null = null;
  #stopped = true;
  readonly #decoder = new TextDecoder();

  constructor(o: LogFollowerOptions) {
    this.#o = {
      pollMs: 100,
      fromStart: false,
      missingRetryMs: 5000,
      maxLineBytes: 64 * 1024,
      maxBytesPerPoll: 4 << 20,
      ...o,
    };
  }

  /** Whether a file is open. */
  get attached(): boolean {
    return this.#file !== null;
  }

  /** Starts polling. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops polling and closes the file. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#o.clock.clearTimeout(this.#timer);
    await this.#running;
    this.#close();
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#running = this.poll().catch((error) => {
        this.#o.log.warn("cannot read the game server log", { path: this.#o.path, error: String(error) });
        this.#close();
      }).finally(() => {
        this.#running = null;
        this.#schedule(this.#file ? this.#o.pollMs : this.#o.missingRetryMs);
      });
    }, ms);
  }

  #close(): void {
    try {
      this.#file?.close();
    } catch {
      // Already closed.
    }
    this.#file = null;
    this.#ino = null;
  }

  async #open(): Promise<boolean> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.#o.path, { read: true });
    } catch (error) {
      // A file that appears later is new: all of it is read.
      this.#opened = true;
      if (!this.#missingLogged) {
        this.#missingLogged = true;
        this.#o.log.warn("game server log not readable yet; retrying", {
          path: this.#o.path,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      return false;
    }
    const info = await file.stat();
    this.#file = file;
    this.#ino = info.ino ?? null;
    this.#resetLine();
    this.#pos = !this.#opened && !this.#o.fromStart ? info.size : 0;
    if (this.#pos > 0) await file.seek(this.#pos, Deno.SeekMode.Start);
    if (this.#opened || this.#missingLogged) this.#o.log.info("following the game server log", { path: this.#o.path });
    this.#opened = true;
    this.#missingLogged = false;
    return true;
  }

  #resetLine(): void {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#skipping = false;
  }

  /** One pass: notices rotation or truncation, then reads what was appended. */
  async poll(): Promise<void> {
    if (!this.#file && !(await this.#open())) return;
    let current: Deno.FileInfo | null = null;
    try {
      current = await Deno.stat(this.#o.path);
    } catch {
      current = null; // moved away and not recreated yet: keep reading the old file
    }
    const rotated = current !== null && this.#ino !== null && current.ino !== null && current.ino !== this.#ino;
    if (rotated) {
      await this.#drain();
      this.#flushPartial();
      this.#close();
      this.#opened = true;
      if (!(await this.#open())) return;
    } else if (current !== null && current.size < this.#pos) {
      this.#o.log.info("game server log truncated; reading it again from the start", { path: this.#o.path });
      this.#pos = 0;
      this.#resetLine();
      await this.#file!.seek(0, Deno.SeekMode.Start);
    }
    await this.#drain();
  }

  async #drain(): Promise<void> {
    const file = this.#file!;
    const buf = new Uint8Array(CHUNK);
    let budget = this.#o.maxBytesPerPoll;
    while (budget > 0) {
      const n = await file.read(buf);
      if (n === null || n === 0) return;
      this.#pos += n;
      budget -= n;
      this.#take(buf.subarray(0, n));
    }
  }

  #take(bytes: Uint8Array): void {
    let start = 0;
    for (let nl = bytes.indexOf(10, start); nl !== -1; nl = bytes.indexOf(10, start)) {
      const piece = bytes.subarray(start, nl);
      if (!this.#skipping) {
        this.#partial.push(piece.slice());
        this.#partialBytes += piece.byteLength;
        if (this.#partialBytes <= this.#o.maxLineBytes) this.#emit();
      }
      this.#resetLine();
      start = nl + 1;
    }
    const rest = bytes.subarray(start);
    if (rest.byteLength === 0 || this.#skipping) return;
    this.#partialBytes += rest.byteLength;
    if (this.#partialBytes > this.#o.maxLineBytes) {
      this.#partial = [];
      this.#skipping = true;
    } else this.#partial.push(rest.slice());
  }

  /** A rotated file's last line without a line break still counts. */
  #flushPartial(): void {
    if (this.#partialBytes > 0 && !this.#skipping) this.#emit();
    this.#resetLine();
  }

  #emit(): void {
    const whole = new Uint8Array(this.#partialBytes);
    let at = 0;
    for (const p of this.#partial) {
      whole.set(p, at);
      at += p.byteLength;
    }
    let line = this.#decoder.decode(whole);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    try {
      this.#o.onLine(line);
    } catch (error) {
      this.#o.log.error("log line handler failed", { error: String(error) });
    }
  }
}
