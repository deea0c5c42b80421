/**
 * The progress bar of a load run, on stderr: redrawn in place on a terminal,
 * one line every few seconds otherwise (CI logs).
 *
 * @module
 */

import type { RunStatus } from "./scenario.ts";

/** One progress line: phase, bar, percentage, elapsed seconds and live figures. */
export function renderProgress(s: RunStatus, elapsedMs: number, width = 24): string {
  const fraction = s.total > 0 ? Math.min(1, Math.max(0, s.done / s.total)) : 0;
  const full = Math.round(fraction * width);
  const bar = "#".repeat(full) + ".".repeat(width - full);
  const pct = `${Math.floor(fraction * 100)}`.padStart(3);
  return `${s.phase.padEnd(10)} [${bar}] ${pct}% ${(elapsedMs / 1000).toFixed(0).padStart(4)} s  ${s.detail}`;
}

/** Periodically draws a status on stderr until stopped. */
export class ProgressBar {
  readonly #status: () => RunStatus;
  readonly #tty: boolean;
  readonly #start = performance.now();
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastPrinted = 0;
  #enc = new TextEncoder();

  constructor(status: () => RunStatus) {
    this.#status = status;
    this.#tty = Deno.stderr.isTerminal();
  }

  /** Starts drawing (every 250 ms on a terminal, every 5 s otherwise). */
  start(): void {
    this.#timer = setInterval(() => this.#draw(false), this.#tty ? 250 : 1000);
  }

  /** Draws a last time and stops. */
  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#draw(true);
    if (this.#tty) this.#write("\n");
  }

  #draw(final: boolean): void {
    const now = performance.now();
    const line = renderProgress(this.#status(), now - this.#start);
    if (this.#tty) {
      let cols = 120;
      try {
        cols = Deno.consoleSize().columns;
      } catch {
        // No console attached after all: keep the default width.
      }
      this.#write(`\r\x1b[2K${line.slice(0, cols - 1)}`);
    } else if (final || now - this.#lastPrinted >= 5000) {
      this.#lastPrinted = now;
      this.#write(line + "\n");
    }
  }

  #write(text: string): void {
    try {
      Deno.stderr.writeSync(this.#enc.encode(text));
    } catch {
      // A closed stderr must not stop the run.
    }
  }
}
