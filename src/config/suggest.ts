/**
 * "Did you mean ...?" for mistyped configuration keys, environment variables
 * and flags (issue 13: `admin_pasword`, `PM_PROT`). A suggestion is made
 * only when the nearest known name is close for its length, so unrelated
 * names get none.
 *
 * @module
 */

import { CONFIG_KEYS, type KeyInfo } from "./keys.ts";

/** Edit distance counting an adjacent transposition as one edit (`prot` -> `port` is 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `target` (both already normalized), or null when none is close enough. */
export function nearest<T>(target: string, candidates: Iterable<T>, nameOf: (c: T) => string): T | null {
  let best: T | null = null;
  // One edit for short names, about one in three for longer ones.
  let bestDistance = Math.max(1, Math.floor(target.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(target, nameOf(candidate));
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** A suggested name and the key it sets. */
export interface Suggestion {
  /** As the user should write it: `admin_password`, `PM_PORT`. */
  readonly name: string;
  readonly key: KeyInfo;
}

/** The known key or section nearest to an unknown dotted path (`admin_pasword`, `Admin-Password` -> `admin_password`). */
export function suggestKey(path: string): Suggestion | null {
  const key = nearest(path.toLowerCase().replaceAll("-", "_"), CONFIG_KEYS, (k) => k.path);
  return key ? { name: key.path, key } : null;
}

/** Variables that are not keys but set one (`PM_DATABASE_URL_FILE` holds `database_url`). */
const ENV_FEEDS: readonly [string, string][] = [["PM_DATABASE_URL_FILE", "database_url"]];

/** The known variable nearest to an unknown `PM_...` one (`PM_PROT` -> `PM_PORT`). */
export function suggestEnv(name: string): Suggestion | null {
  const candidates: Suggestion[] = CONFIG_KEYS.map((key) => ({ name: key.env, key }));
  for (const [env, path] of ENV_FEEDS) {
    const key = CONFIG_KEYS.find((k) => k.path === path);
    if (key) candidates.push({ name: env, key });
  }
  return nearest(name.toUpperCase(), candidates, (c) => c.name);
}

/**
 * The message for an unknown key or variable: a warning (`... is ignored; did you mean port?`), or a problem
 * when the nearest name sets a secret. A misspelled secret would otherwise start the server without it (no admin
 * password, the embedded database instead of `database_url`); refusing names the fix at once.
 */
export function unknownName(what: string, near: Suggestion | null): {
  readonly problem: boolean;
  readonly message: string;
} {
  if (near?.key.secret) {
    return {
      problem: true,
      message: `${what}: did you mean ${near.name}? A misspelled secret would leave ${near.key.path} unset, so the ` +
        `server does not start; correct the name (or remove the entry)`,
    };
  }
  return { problem: false, message: `${what} is ignored${near ? `; did you mean ${near.name}?` : ""}` };
}
