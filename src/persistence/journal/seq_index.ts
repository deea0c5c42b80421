/**
 * The records kept by the startup scan (`scan.ts`), compactly: per
 * segment, typed arrays of sequence, body checksum and byte offsets (20
 * bytes a record), so a journal of millions of records is indexed without
 * an object per record. The index finds an earlier record by sequence to
 * tell a duplicate (same body) from a conflict, and gives the recovery the
 * offsets of the records to keep when it rewrites a segment.
 *
 * @module
 */

/** The records kept from one segment, in file (and sequence) order. */
export class RecordIndex {
  readonly path: string;
  #n = 0;
  #seqs = new Float64Array(64);
  #crcs = new Uint32Array(64);
  #starts = new Uint32Array(64);
  #bodyStarts = new Uint32Array(64);
  #ends = new Uint32Array(64);

  constructor(path: string) {
    this.path = path;
  }

  /** Records kept. */
  get length(): number {
    return this.#n;
  }

  /** Sequence of record `i`. */
  seq(i: number): number {
    return this.#seqs[i]!;
  }

  /** The body of record `i` within the segment's bytes. */
  body(i: number): { readonly start: number; readonly bodyStart: number; readonly end: number } {
    return { start: this.#starts[i]!, bodyStart: this.#bodyStarts[i]!, end: this.#ends[i]! };
  }

  /** Adds a record (sequences ascending). */
  push(seq: number, bodyCrc: number, start: number, bodyStart: number, end: number): void {
    if (this.#n === this.#seqs.length) this.#grow();
    const i = this.#n++;
    this.#seqs[i] = seq;
    this.#crcs[i] = bodyCrc;
    this.#starts[i] = start;
    this.#bodyStarts[i] = bodyStart;
    this.#ends[i] = end;
  }

  /** The record with sequence `seq`: its body checksum and offset, or null. */
  find(seq: number): { readonly bodyCrc: number; readonly offset: number } | null {
    let lo = 0;
    let hi = this.#n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = this.#seqs[mid]!;
      if (s === seq) return { bodyCrc: this.#crcs[mid]!, offset: this.#starts[mid]! };
      if (s < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  #grow(): void {
    const size = this.#seqs.length * 2;
    const grow = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.#seqs = grow(this.#seqs, (n) => new Float64Array(n));
    this.#crcs = grow(this.#crcs, (n) => new Uint32Array(n));
    this.#starts = grow(this.#starts, (n) => new Uint32Array(n));
    this.#bodyStarts = grow(this.#bodyStarts, (n) => new Uint32Array(n));
    this.#ends = grow(this.#ends, (n) => new Uint32Array(n));
  }
}

/** Every segment's records, in sequence order across segments. */
export class SeqIndex {
  readonly #segments: RecordIndex[] = [];

  /** Adds the next segment's records (filled while it is scanned). */
  add(records: RecordIndex): void {
    this.#segments.push(records);
  }

  /** The kept record with sequence `seq`, with where it is, or null. */
  find(seq: number): { readonly bodyCrc: number; readonly where: string } | null {
    for (let i = this.#segments.length - 1; i >= 0; i--) {
      const records = this.#segments[i]!;
      if (records.length === 0 || records.seq(0) > seq) continue;
      const hit = records.find(seq);
      return hit ? { bodyCrc: hit.bodyCrc, where: `byte ${hit.offset} of "${records.path}"` } : null;
    }
    return null;
  }
}
