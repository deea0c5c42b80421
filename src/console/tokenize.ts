/**
 * Splits a console line into words (spec 3 §4.2). Words are separated by
 * whitespace; `"..."` and `'...'` group words with spaces (a backslash escapes
 * the next character inside double quotes), so `broadcast all "two  spaces"`
 * keeps the message whole.
 *
 * @module
 */

/** A syntax problem in a command line. */
export class TokenizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TokenizeError";
  }
}

/** Splits `line` into words; throws {@link TokenizeError} on an unterminated quote. */
export function tokenize(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new TokenizeError(`Cannot parse command: unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}
