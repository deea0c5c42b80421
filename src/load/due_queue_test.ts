import { deepEqual, equal } from "node:assert/strict";
import { DueQueue } from "./due_queue.ts";

Deno.test("DueQueue pops due items in time order, ties in insertion order", () => {
  const q = new DueQueue<string>();
  for (const [due, item] of [[30, "c"], [10, "a"], [20, "b1"], [20, "b2"], [50, "e"], [40, "d"]] as const) {
    q.push(due, item);
  }
  equal(q.peekDue(), 10);
  const out: string[] = [];
  for (let x = q.popDue(35); x !== undefined; x = q.popDue(35)) out.push(x);
  deepEqual(out, ["a", "b1", "b2", "c"]);
  equal(q.size, 2);
  equal(q.popDue(39), undefined);
  equal(q.popDue(100), "d");
  q.clear();
  equal(q.peekDue(), null);
});
