/**
 * Randomness as an injected dependency, so room decisions (random new host)
 * are reproducible in tests.
 *
 * @module
 */

/** Source of uniform random numbers. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
}

/** `Math.random`-backed source for production. */
export const systemRandom: Random = { next: () => Math.random() };

/** Deterministic generator (mulberry32) for tests and fuzzing. */
export class SeededRandom implements Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** An integer in [0, n). */
export function randomInt(random: Random, n: number): number {
  return Math.floor(random.next() * n);
}

/** A uniformly chosen element of a non-empty array. */
export function pick<T>(random: Random, items: readonly T[]): T {
  if (items.length === 0) throw new RangeError("Cannot pick from an empty list");
  return items[randomInt(random, items.length)]!;
}
