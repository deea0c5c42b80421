import { deepEqual } from "node:assert/strict";
import { ObservedSet } from "./observed_set.ts";

Deno.test("ObservedSet reports real changes only", () => {
  const seen: number[][] = [];
  const set = new ObservedSet([1, 2]);
  set.onChange = (v) => seen.push(v);
  set.add(2);
  set.add(3);
  set.delete(9);
  set.delete(1);
  set.clear();
  set.clear();
  deepEqual(seen, [[1, 2, 3], [2, 3], []]);
});
