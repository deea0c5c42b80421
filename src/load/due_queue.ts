/**
 * A binary min-heap of items keyed by due time, for driving thousands of
 * simulated players from one timer instead of one timer each.
 *
 * @module
 */

interface Entry<T> {
  due: number;
  seq: number;
  item: T;
}

/** Min-heap by due time (ties in insertion order). */
export class DueQueue<T> {
  #heap: Entry<T>[] = [];
  #seq = 0;

  /** Items queued. */
  get size(): number {
    return this.#heap.length;
  }

  /** Due time of the earliest item, or null when empty. */
  peekDue(): number | null {
    return this.#heap[0]?.due ?? null;
  }

  /** Queues `item` for time `due`. */
  push(due: number, item: T): void {
    const heap = this.#heap;
    heap.push({ due, seq: this.#seq++, item });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  /** Removes and returns the earliest item if it is due at or before `now`. */
  popDue(now: number): T | undefined {
    const heap = this.#heap;
    const top = heap[0];
    if (!top || top.due > now) return undefined;
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && less(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top.item;
  }

  /** Empties the queue. */
  clear(): void {
    this.#heap = [];
  }
}

function less<T>(a: Entry<T>, b: Entry<T>): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
