/**
 * Reads a secret for `chorus companions hash-password`: from a terminal
 * without echo (raw mode, backspace honoured, Ctrl-C aborts), otherwise one
 * line of standard input, so `printf '%s\n' "$PW" | chorus companions
 * hash-password` works in scripts. The secret never reaches the command
 * line (shell history, process list).
 *
 * @module
 */

const encoder = new TextEncoder();

async function readLines(): Promise<string[]> {
  const text = new TextDecoder().decode(await new Response(Deno.stdin.readable).arrayBuffer());
  return text.split(/\r?\n/);
}

/** A reader of secrets: each call gives one, or null at the end of input. */
export function secretReader(): (prompt: string) => Promise<string | null> {
  // Lines of standard input not consumed yet, when it is not a terminal.
  let pending: string[] | null = null;
  return async (prompt) => {
    if (Deno.stdin.isTerminal()) return await fromTerminal(prompt);
    pending ??= await readLines();
    const line = pending.shift();
    return line === undefined || (line === "" && pending.length === 0) ? null : line;
  };
}

async function fromTerminal(prompt: string): Promise<string | null> {
  Deno.stderr.writeSync(encoder.encode(prompt));
  Deno.stdin.setRaw(true);
  const chars: string[] = [];
  const buf = new Uint8Array(64);
  try {
    for (;;) {
      const n = await Deno.stdin.read(buf);
      if (n === null) return null;
      for (const ch of new TextDecoder().decode(buf.subarray(0, n))) {
        if (ch === "\r" || ch === "\n") return chars.join("");
        if (ch === "\x03" || ch === "\x04") return null;
        if (ch === "\x7f" || ch === "\b") chars.pop();
        else if (ch >= " ") chars.push(ch);
      }
    }
  } finally {
    Deno.stdin.setRaw(false);
    Deno.stderr.writeSync(encoder.encode("\n"));
  }
}
