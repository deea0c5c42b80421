/**
 * A `Set` that reports every change, so a caller can persist it (for example
 * the administrator ids edited with `admin-id`).
 *
 * @module
 */

/** A set that calls `onChange` after every add, delete or clear that changed it. */
export class ObservedSet<T> extends Set<T> {
  // Not a class field: the Set constructor calls add() before fields exist.
  declare onChange: ((values: T[]) => void) | null | undefined;

  override add(value: T): this {
    const had = this.has(value);
    super.add(value);
    if (!had) this.onChange?.([...this]);
    return this;
  }

  override delete(value: T): boolean {
    const removed = super.delete(value);
    if (removed) this.onChange?.([...this]);
    return removed;
  }

  override clear(): void {
    const had = this.size > 0;
    super.clear();
    if (had) this.onChange?.([...this]);
  }
}
