/**
 * The editable command line of the interactive console and the terminal UI
 * (issue 7 "line editing and history"): insert, move left/right/Home/End,
 * Backspace/Delete, kill to start/end/word, history with Up/Down (the line
 * being typed is kept while browsing), Tab completion. Pure state: the
 * front ends draw it.
 *
 * @module
 */

import { charWidth, type Key } from "./keys.ts";

/** What a key did. */
export type EditorAction =
  | { readonly t: "none" }
  | { readonly t: "changed" }
  | { readonly t: "submit"; readonly line: string }
  | { readonly t: "complete" }
  | { readonly t: "eof" }
  | { readonly t: "interrupt" }
  | { readonly t: "redraw" }
  | { readonly t: "page"; readonly dir: -1 | 1 };

/** A single-line editor with history. */
export class LineEditor {
  #chars: string[] = [];
  #cursor = 0;
  readonly #history: string[] = [];
  /** Position while browsing history; `history.length` = the line being typed. */
  #at = 0;
  #draft: string[] = [];
  readonly historySize: number;

  constructor(historySize = 500) {
    this.historySize = historySize;
  }

  /** The current text. */
  get text(): string {
    return this.#chars.join("");
  }

  /** Cursor position in characters. */
  get cursor(): number {
    return this.#cursor;
  }

  /** Entered lines, oldest first. */
  get history(): readonly string[] {
    return this.#history;
  }

  /** Replaces the text and puts the cursor at its end. */
  set(text: string): void {
    this.#chars = [...text];
    this.#cursor = this.#chars.length;
  }

  /** Applies one key. */
  handle(key: Key): EditorAction {
    const c = this.#chars;
    switch (key.t) {
      case "char":
        c.splice(this.#cursor++, 0, key.ch);
        return { t: "changed" };
      case "enter": {
        const line = this.text;
        if (line.trim() && this.#history.at(-1) !== line) {
          this.#history.push(line);
          if (this.#history.length > this.historySize) this.#history.shift();
        }
        this.#chars = [];
        this.#cursor = 0;
        this.#at = this.#history.length;
        this.#draft = [];
        return { t: "submit", line };
      }
      case "backspace":
        if (this.#cursor === 0) return { t: "none" };
        c.splice(--this.#cursor, 1);
        return { t: "changed" };
      case "delete":
        if (this.#cursor >= c.length) return { t: "none" };
        c.splice(this.#cursor, 1);
        return { t: "changed" };
      case "left":
        return this.#move(this.#cursor - 1);
      case "right":
        return this.#move(this.#cursor + 1);
      case "home":
        return this.#move(0);
      case "end":
        return this.#move(c.length);
      case "up":
        return this.#browse(-1);
      case "down":
        return this.#browse(1);
      case "kill-line":
        c.splice(0, this.#cursor);
        this.#cursor = 0;
        return { t: "changed" };
      case "kill-end":
        c.splice(this.#cursor);
        return { t: "changed" };
      case "kill-word": {
        let i = this.#cursor;
        while (i > 0 && c[i - 1] === " ") i--;
        while (i > 0 && c[i - 1] !== " ") i--;
        c.splice(i, this.#cursor - i);
        this.#cursor = i;
        return { t: "changed" };
      }
      case "tab":
        return { t: "complete" };
      case "eof":
        return c.length ? this.handle({ t: "delete" }) : { t: "eof" };
      case "interrupt":
        this.set("");
        return { t: "interrupt" };
      case "redraw":
        return { t: "redraw" };
      case "pageup":
        return { t: "page", dir: -1 };
      case "pagedown":
        return { t: "page", dir: 1 };
      default:
        return { t: "none" };
    }
  }

  /**
   * Completes the text from `candidates` (full command names): one candidate
   * is taken with a trailing space; several extend the text to their common
   * prefix and are returned for display.
   */
  complete(candidates: readonly string[]): string[] {
    if (this.#cursor !== this.#chars.length || !candidates.length) return [];
    if (candidates.length === 1) {
      this.set(`${candidates[0]} `);
      return [];
    }
    let prefix = candidates[0]!;
    for (const c of candidates) while (!c.startsWith(prefix)) prefix = prefix.slice(0, -1);
    if (prefix.length > this.text.trimStart().length) this.set(prefix);
    return [...candidates];
  }

  /**
   * The visible part of `prompt + text` in `width` columns, scrolled so the
   * cursor stays visible, and the cursor's column.
   */
  view(prompt: string, width: number): { text: string; column: number } {
    const before = this.#chars.slice(0, this.#cursor);
    const room = Math.max(1, width - prompt.length - 1);
    let start = 0;
    let w = before.reduce((n, ch) => n + charWidth(ch), 0);
    while (w > room && start < before.length) w -= charWidth(before[start++]!);
    let text = "";
    let used = 0;
    for (const ch of this.#chars.slice(start)) {
      const cw = charWidth(ch);
      if (used + cw > room) break;
      text += ch;
      used += cw;
    }
    return { text: prompt + text, column: prompt.length + w };
  }

  #move(to: number): EditorAction {
    const next = Math.max(0, Math.min(this.#chars.length, to));
    if (next === this.#cursor) return { t: "none" };
    this.#cursor = next;
    return { t: "changed" };
  }

  #browse(dir: -1 | 1): EditorAction {
    const next = this.#at + dir;
    if (next < 0 || next > this.#history.length) return { t: "none" };
    if (this.#at === this.#history.length) this.#draft = [...this.#chars];
    this.#at = next;
    this.#chars = next === this.#history.length ? [...this.#draft] : [...this.#history[next]!];
    this.#cursor = this.#chars.length;
    return { t: "changed" };
  }
}
