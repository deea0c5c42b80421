/**
 * The terminal UI's screen as text (issue 7 "terminal UI"): a title line,
 * panes for rooms and online users side by side, the output of commands,
 * recent log lines, and the command line at the bottom. Pure: the driver in
 * `tui.ts` writes the lines with ANSI cursor positioning.
 *
 * @module
 */

import { fit } from "./keys.ts";

/** A line with an optional style. */
export interface StyledLine {
  readonly text: string;
  readonly style?: "error" | "warn" | "dim" | undefined;
}

/** Everything on screen. */
export interface ScreenModel {
  readonly title: string;
  readonly rooms: readonly string[];
  readonly users: readonly string[];
  readonly output: readonly StyledLine[];
  readonly logs: readonly StyledLine[];
  /** Lines the log pane is scrolled up by (0 = newest at the bottom). */
  readonly logScroll: number;
  /** Prompt line text and cursor column (from `LineEditor.view`). */
  readonly prompt: { readonly text: string; readonly column: number };
}

/** A rendered screen: exactly `rows` lines of `columns` width, and the cursor. */
export interface RenderedScreen {
  readonly lines: string[];
  readonly cursor: { readonly row: number; readonly column: number };
}

const STYLE: Readonly<Record<NonNullable<StyledLine["style"]>, string>> = {
  error: "\x1b[31m",
  warn: "\x1b[33m",
  dim: "\x1b[2m",
};

function paint(text: string, style: StyledLine["style"], color: boolean): string {
  return color && style ? `${STYLE[style]}${text}\x1b[0m` : text;
}

/** A bordered pane of `height` rows (borders included) and `width` columns. */
function pane(
  title: string,
  body: readonly StyledLine[],
  width: number,
  height: number,
  color: boolean,
): string[] {
  const inner = Math.max(0, width - 2);
  const label = fit(`\u2500 ${title} `, Math.min(inner, title.length + 3));
  const top = `\u250c${label}${"\u2500".repeat(Math.max(0, inner - label.length))}\u2510`;
  const rows = Math.max(0, height - 2);
  const lines = [top];
  for (let i = 0; i < rows; i++) {
    const item = body[i];
    lines.push(`\u2502${paint(fit(item?.text ?? "", inner), item?.style, color)}\u2502`);
  }
  lines.push(`\u2514${"\u2500".repeat(inner)}\u2518`);
  return lines;
}

/** The first `n` lines, the last one saying how many more there are. */
function head(lines: readonly string[], n: number): StyledLine[] {
  if (lines.length <= n) return lines.map((text) => ({ text }));
  return [...lines.slice(0, Math.max(0, n - 1)).map((text) => ({ text })), {
    text: `\u2026 ${lines.length - n + 1} more`,
    style: "dim",
  }];
}

/** The `n` lines ending `scroll` lines before the newest. */
function tail(lines: readonly StyledLine[], n: number, scroll: number): StyledLine[] {
  const end = Math.max(Math.min(n, lines.length), lines.length - scroll);
  return lines.slice(Math.max(0, end - n), end);
}

/** Lays the screen out for a `columns` × `rows` terminal. */
export function renderScreen(m: ScreenModel, columns: number, rows: number, color = false): RenderedScreen {
  const cols = Math.max(20, columns);
  const height = Math.max(8, rows);
  const body = height - 2;
  const lines: string[] = [color ? `\x1b[7m${fit(m.title, cols)}\x1b[0m` : fit(m.title, cols)];
  const topH = Math.max(4, Math.floor(body * 0.4));
  const outH = Math.max(3, Math.floor(body * 0.25));
  const logH = Math.max(3, body - topH - outH);
  const leftW = Math.floor(cols * 0.58);
  const left = pane(`Rooms (${m.rooms.length})`, head(m.rooms, topH - 2), leftW, topH, color);
  const right = pane(`Online users (${m.users.length})`, head(m.users, topH - 2), cols - leftW, topH, color);
  for (let i = 0; i < topH; i++) lines.push(left[i]! + right[i]!);
  lines.push(...pane("Output", tail(m.output, outH - 2, 0), cols, outH, color));
  const logTitle = m.logScroll > 0 ? `Log (scrolled up ${m.logScroll}; PgDn)` : "Log (PgUp/PgDn)";
  lines.push(...pane(logTitle, tail(m.logs, logH - 2, m.logScroll), cols, logH, color));
  while (lines.length < height - 1) lines.push(" ".repeat(cols));
  lines.length = height - 1;
  // The last column of the last row is left blank so the terminal never scrolls.
  lines.push(fit(m.prompt.text, cols - 1));
  return { lines, cursor: { row: height - 1, column: Math.min(cols - 1, m.prompt.column) } };
}
