/**
 * Terminal key decoding for the interactive console and the terminal UI:
 * raw-mode input bytes (already decoded to text) become keys, including the
 * ANSI escape sequences of arrows, Home/End, Delete and Page Up/Down.
 *
 * @module
 */

/** Names of the keys other than printable characters. */
export type KeyName =
  | "enter"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "home"
  | "end"
  | "up"
  | "down"
  | "pageup"
  | "pagedown"
  | "tab"
  | "interrupt"
  | "eof"
  | "redraw"
  | "kill-line"
  | "kill-end"
  | "kill-word"
  | "unknown";

/** A decoded key. */
export type Key = { readonly t: "char"; readonly ch: string } | { readonly t: KeyName };

const CONTROL: Readonly<Record<string, KeyName>> = {
  "\r": "enter",
  "\n": "enter",
  "\x7f": "backspace",
  "\b": "backspace",
  "\t": "tab",
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x10": "up",
  "\x0e": "down",
  "\x03": "interrupt",
  "\x04": "eof",
  "\x0c": "redraw",
  "\x15": "kill-line",
  "\x0b": "kill-end",
  "\x17": "kill-word",
};

const CSI_FINAL: Readonly<Record<string, KeyName>> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
};

const CSI_TILDE: Readonly<Record<string, KeyName>> = {
  "1": "home",
  "7": "home",
  "4": "end",
  "8": "end",
  "3": "delete",
  "5": "pageup",
  "6": "pagedown",
};

/**
 * Decodes `input` into keys. An escape sequence cut off at the end is
 * returned in `rest`, to be prefixed to the next input.
 */
export function parseKeys(input: string): { keys: Key[]; rest: string } {
  const keys: Key[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i]!;
    if (ch === "\x1b") {
      const next = input[i + 1];
      if (next === undefined) return { keys, rest: input.slice(i) };
      if (next === "[" || next === "O") {
        // CSI / SS3: parameters, then one final byte in @-~.
        let j = i + 2;
        while (j < input.length && !/[@-~]/.test(input[j]!)) j++;
        if (j >= input.length) return { keys, rest: input.slice(i) };
        const params = input.slice(i + 2, j);
        const final = input[j]!;
        const t = final === "~" ? CSI_TILDE[params.split(";")[0] ?? ""] : CSI_FINAL[final];
        keys.push({ t: t ?? "unknown" });
        i = j + 1;
        continue;
      }
      keys.push({ t: "unknown" });
      i += 2;
      continue;
    }
    if (ch === "\r" && input[i + 1] === "\n") i++;
    const control = CONTROL[ch];
    if (control) keys.push({ t: control });
    else if (ch < " ") keys.push({ t: "unknown" });
    else {
      const cp = input.codePointAt(i)!;
      const text = String.fromCodePoint(cp);
      keys.push({ t: "char", ch: text });
      i += text.length;
      continue;
    }
    i++;
  }
  return { keys, rest: "" };
}

/** Display width of one character: 2 for East Asian wide and full-width forms, 0 for combining marks. */
export function charWidth(ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp >= 0x300 && cp <= 0x36f) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd)
  ) return 2;
  return 1;
}

/** Display width of a string. */
export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch);
  return w;
}

/** Cuts `text` to at most `width` columns and pads it with spaces to exactly `width`. */
export function fit(text: string, width: number): string {
  let out = "";
  let w = 0;
  for (const raw of text) {
    // Control characters would move the cursor or start an escape sequence
    // (C1 \x9b is a one-byte CSI on many terminals): show them as spaces.
    const ch = raw < " " || (raw >= "\x7f" && raw <= "\x9f") ? " " : raw;
    const cw = charWidth(ch);
    if (w + cw > width) break;
    out += ch;
    w += cw;
  }
  return out + " ".repeat(Math.max(0, width - w));
}
