/**
 * Latency statistics with bounded memory: a log-linear histogram (1 µs
 * resolution below 128 µs, then 64 sub-buckets per power of two, so every
 * percentile is within 1.6 % of the true value), the spec's fixed 9-bucket
 * latency histogram (spec 3 §8), and exact nearest-rank percentiles for small
 * sample sets.
 *
 * @module
 */

import { LATENCY_BOUNDS_MS } from "../server/counters.ts";

const LINEAR = 128;
const SUB = 64;
const SUB_BITS = 6;
/** Powers of two above the linear range: values up to 2^45 µs (about 400 days). */
const OCTAVES = 39;
const BUCKETS = LINEAR + OCTAVES * SUB;

/** Percentile summary of a histogram, in milliseconds (null fields when empty). */
export interface LatencySummary {
  readonly count: number;
  readonly min: number | null;
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p99: number | null;
  readonly p999: number | null;
  readonly max: number | null;
}

function bucketOf(us: number): number {
  if (us < LINEAR) return us < 0 ? 0 : Math.floor(us);
  const v = Math.min(Math.floor(us), 2 ** (OCTAVES + SUB_BITS + 1) - 1);
  const log2 = v < 2 ** 31 ? 31 - Math.clz32(v) : Math.floor(Math.log2(v));
  const exp = log2 - SUB_BITS; // >= 1 because v >= 128
  const sub = Math.floor(v / 2 ** exp); // 64..127
  return LINEAR + (exp - 1) * SUB + (sub - SUB);
}

/** Upper bound (exclusive) of a bucket, in µs. */
function bucketUpper(index: number): number {
  if (index < LINEAR) return index + 1;
  const exp = Math.floor((index - LINEAR) / SUB) + 1;
  const sub = ((index - LINEAR) % SUB) + SUB;
  return (sub + 1) * 2 ** exp;
}

/** Millisecond latencies in log-linear buckets; memory is constant whatever the sample count. */
export class Histogram {
  #counts = new Float64Array(BUCKETS);
  #count = 0;
  #sum = 0;
  #min = Infinity;
  #max = -Infinity;

  /** Samples recorded. */
  get count(): number {
    return this.#count;
  }

  /** Largest sample, ms (null when empty). */
  get max(): number | null {
    return this.#count ? this.#max : null;
  }

  /** Records one value in milliseconds (negative values count as 0). */
  record(ms: number): void {
    if (!Number.isFinite(ms)) return;
    const v = ms < 0 ? 0 : ms;
    this.#counts[bucketOf(v * 1000)]!++;
    this.#count++;
    this.#sum += v;
    if (v < this.#min) this.#min = v;
    if (v > this.#max) this.#max = v;
  }

  /** Adds every sample of `other`. */
  merge(other: Histogram): void {
    if (!other.#count) return;
    for (let i = 0; i < BUCKETS; i++) this.#counts[i]! += other.#counts[i]!;
    this.#count += other.#count;
    this.#sum += other.#sum;
    this.#min = Math.min(this.#min, other.#min);
    this.#max = Math.max(this.#max, other.#max);
  }

  /** Forgets every sample. */
  reset(): void {
    this.#counts.fill(0);
    this.#count = 0;
    this.#sum = 0;
    this.#min = Infinity;
    this.#max = -Infinity;
  }

  /**
   * The `q` quantile (0..1) in ms: the upper bound of the bucket holding the
   * nearest-rank sample, clamped to the observed min and max.
   */
  quantile(q: number): number | null {
    if (!this.#count) return null;
    const rank = Math.max(1, Math.ceil(Math.min(1, Math.max(0, q)) * this.#count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.#counts[i]!;
      if (seen >= rank) return Math.min(this.#max, Math.max(this.#min, bucketUpper(i) / 1000));
    }
    return this.#max;
  }

  /** Count, min, mean, p50/p90/p99/p99.9 and max in ms, rounded to 3 decimals. */
  summary(): LatencySummary {
    const r = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
    const n = this.#count;
    return {
      count: n,
      min: r(n ? this.#min : null),
      mean: r(n ? this.#sum / n : null),
      p50: r(this.quantile(0.5)),
      p90: r(this.quantile(0.9)),
      p99: r(this.quantile(0.99)),
      p999: r(this.quantile(0.999)),
      max: r(n ? this.#max : null),
    };
  }
}

/** One bucket of a {@link FixedHistogram}: samples below `le` (and at or above the previous bound). */
export interface FixedBucket {
  /** Upper bound in ms; null for the last, open bucket. */
  readonly le: number | null;
  readonly count: number;
}

/** Counts of samples per fixed bucket (`[0,1)`, `[1,5)`, ... `[5000,infinity)`). */
export class FixedHistogram {
  readonly bounds: readonly number[];
  #counts: number[];

  // Default: the server's own bounds (spec 3 §8), so benchmark reports and `runtime latency` bucket alike.
  constructor(bounds: readonly number[] = LATENCY_BOUNDS_MS) {
    for (let i = 1; i < bounds.length; i++) {
      if (!(bounds[i]! > bounds[i - 1]!)) throw new RangeError(`Cannot build histogram: bounds must increase`);
    }
    this.bounds = [...bounds];
    this.#counts = new Array(bounds.length + 1).fill(0);
  }

  /** Records one value in ms. */
  record(ms: number): void {
    let i = 0;
    while (i < this.bounds.length && ms >= this.bounds[i]!) i++;
    this.#counts[i]!++;
  }

  /** Buckets in order, the open one last. */
  buckets(): FixedBucket[] {
    return this.#counts.map((count, i) => ({ le: this.bounds[i] ?? null, count }));
  }
}

/** Nearest-rank percentile of an ascending array (`q` in 0..1); null when empty. */
export function exactQuantile(sorted: readonly number[], q: number): number | null {
  if (!sorted.length) return null;
  const rank = Math.max(1, Math.ceil(Math.min(1, Math.max(0, q)) * sorted.length));
  return sorted[rank - 1]!;
}

/** Events per second over a span of milliseconds (0 for an empty span). */
export function perSecond(count: number, spanMs: number): number {
  return spanMs > 0 ? Math.round((count * 1000 / spanMs) * 10) / 10 : 0;
}

/** Average and peak of a sampled figure, rounded to one decimal. */
export class AvgPeakSeries {
  #sum = 0;
  #n = 0;
  #peak = 0;

  /** Adds one sample. */
  add(v: number): void {
    this.#sum += v;
    this.#n++;
    if (v > this.#peak) this.#peak = v;
  }

  /** `{avg, peak}` (0 when empty). */
  get(): { avg: number; peak: number } {
    return { avg: this.#n ? Math.round(this.#sum / this.#n * 10) / 10 : 0, peak: Math.round(this.#peak * 10) / 10 };
  }
}
