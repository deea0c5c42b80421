/**
 * A strict reader of the Prometheus text exposition format (0.0.4) for
 * tests: every line must be a HELP, TYPE, comment or sample line of the
 * grammar; names, label names and escapes must be valid; a family's TYPE
 * comes once and before its samples; no series repeats; counters are not
 * negative; histogram buckets are cumulative with `+Inf` equal to
 * `_count`. Throws a SyntaxError naming the line otherwise. Used beside
 * the npm parser `parse-prometheus-text-format`, which is lenient.
 *
 * @module
 */

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/** One sample. */
export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed exposition. */
export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly ParsedSample[];
  /** The value of the one sample `name` with exactly these labels (others ignored when `partial`). */
  value(name: string, labels?: Record<string, string>): number;
}

/** A value as Go's `strconv.ParseFloat` reads it (what Prometheus uses): `NaN`, `Inf` in any case, decimals. */
function parseValue(text: string, line: number): number {
  const lower = text.toLowerCase();
  if (lower === "+inf" || lower === "inf") return Infinity;
  if (lower === "-inf") return -Infinity;
  if (lower === "nan") return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new SyntaxError(`line ${line}: bad value "${text}"`);
  return Number(text);
}

/** Reads `{a="b",c="d"}` starting at `text[0] === "{"`; returns the labels and the rest of the line. */
function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
    const eq = text.indexOf("=", i);
    if (eq < 0) throw new SyntaxError(`line ${line}: unterminated labels`);
    const name = text.slice(i, eq);
    if (!LABEL.test(name)) throw new SyntaxError(`line ${line}: bad label name "${name}"`);
    if (name in labels) throw new SyntaxError(`line ${line}: label "${name}" repeated`);
    if (text[eq + 1] !== '"') throw new SyntaxError(`line ${line}: label value must be quoted`);
    let value = "";
    let j = eq + 2;
    for (;; j++) {
      const c = text[j];
      if (c === undefined) throw new SyntaxError(`line ${line}: unterminated label value`);
      if (c === '"') break;
      if (c === "\n") throw new SyntaxError(`line ${line}: raw newline in label value`);
      if (c === "\\") {
        const e = text[++j];
        if (e === "\\") value += "\\";
        else if (e === '"') value += '"';
        else if (e === "n") value += "\n";
        else throw new SyntaxError(`line ${line}: bad escape \\${e}`);
      } else value += c;
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ",") i++;
    else if (text[i] !== "}") throw new SyntaxError(`line ${line}: expected , or } after a label`);
  }
}

/** The family a sample name belongs to, given the declared types. */
function familyOf(name: string, types: ReadonlyMap<string, string>): string {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && (types.get(base) === "histogram" || types.get(base) === "summary")) return base;
  }
  return name;
}

/** Parses and checks an exposition. */
export function parseExposition(text: string): Exposition {
  if (!text.endsWith("\n")) throw new SyntaxError("the exposition must end with a newline");
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const seenSamples = new Set<string>();
  const familiesWithSamples = new Set<string>();
  const samples: ParsedSample[] = [];
  text.slice(0, -1).split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (raw === "") return;
    if (raw.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return; // an ordinary comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new SyntaxError(`line ${line}: bad metric name "${name}"`);
      if (kind === "HELP") {
        if (helps.has(name)) throw new SyntaxError(`line ${line}: second HELP for ${name}`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ""))) throw new SyntaxError(`line ${line}: bad escape in HELP`);
        helps.add(name);
      } else {
        if (types.has(name)) throw new SyntaxError(`line ${line}: second TYPE for ${name}`);
        if (familiesWithSamples.has(name)) throw new SyntaxError(`line ${line}: TYPE of ${name} after its samples`);
        if (!TYPES.has(rest)) throw new SyntaxError(`line ${line}: unknown type "${rest}"`);
        types.set(name, rest);
      }
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(.*)$/.exec(raw);
    if (!m) throw new SyntaxError(`line ${line}: not a sample: ${raw}`);
    const name = m[1]!;
    let rest = m[2]!;
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.trim().split(" ");
    if (!rest.startsWith(" ") || parts.length < 1 || parts.length > 2) {
      throw new SyntaxError(`line ${line}: expected "<value> [timestamp]" after the name: ${raw}`);
    }
    const value = parseValue(parts[0]!, line);
    const family = familyOf(name, types);
    familiesWithSamples.add(family);
    const key = `${name}{${Object.entries(labels).sort().map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}}`;
    if (seenSamples.has(key)) throw new SyntaxError(`line ${line}: series ${key} repeated`);
    seenSamples.add(key);
    if (types.get(family) === "counter" && !(value >= 0)) throw new SyntaxError(`line ${line}: negative counter`);
    samples.push({ name, labels, value });
  });
  checkHistograms(types, samples);
  return {
    types,
    samples,
    value(name, labels = {}) {
      const want = Object.entries(labels);
      const found = samples.filter((s) =>
        s.name === name && want.every(([k, v]) => s.labels[k] === v) &&
        Object.keys(s.labels).length === want.length
      );
      if (found.length !== 1) {
        throw new Error(`expected one sample ${name}${JSON.stringify(labels)}, found ${found.length}`);
      }
      return found[0]!.value;
    },
  };
}

function checkHistograms(types: ReadonlyMap<string, string>, samples: readonly ParsedSample[]): void {
  for (const [name, type] of types) {
    if (type !== "histogram") continue;
    const groups = new Map<string, { le: number; value: number }[]>();
    const counts = new Map<string, number>();
    const keyOf = (labels: Readonly<Record<string, string>>) =>
      JSON.stringify(Object.entries(labels).filter(([k]) => k !== "le").sort());
    for (const s of samples) {
      if (s.name === `${name}_bucket`) {
        if (s.labels.le === undefined) throw new SyntaxError(`${name}_bucket without le`);
        const key = keyOf(s.labels);
        const list = groups.get(key) ?? [];
        list.push({ le: parseValue(s.labels.le, 0), value: s.value });
        groups.set(key, list);
      } else if (s.name === `${name}_count`) counts.set(keyOf(s.labels), s.value);
    }
    // A family with no series yet (a labelled histogram nobody observed) is valid: only HELP and TYPE.
    if (!groups.size && counts.size) throw new SyntaxError(`histogram ${name} has _count but no buckets`);
    for (const [key, list] of groups) {
      list.sort((a, b) => a.le - b.le);
      for (let i = 1; i < list.length; i++) {
        if (list[i]!.value < list[i - 1]!.value) throw new SyntaxError(`${name}: buckets are not cumulative`);
      }
      const inf = list.at(-1)!;
      if (inf.le !== Infinity) throw new SyntaxError(`${name}: no +Inf bucket`);
      if (counts.get(key) !== inf.value) throw new SyntaxError(`${name}: +Inf bucket differs from _count`);
    }
  }
}
