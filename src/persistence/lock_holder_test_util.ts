/**
 * A process that takes the lock of the data directory given as its argument
 * and holds it until killed (tests: an owner that dies without releasing).
 * Prints `held` once it has the lock. Run with the start task's file and
 * system permissions only, never `-A`.
 *
 * @module
 */

import { LogHub } from "../util/log.ts";
import { DataDirLock } from "./lock.ts";

const dir = Deno.args[0];
if (!dir) throw new TypeError("usage: lock_holder_test_util.ts <data_dir>");
DataDirLock.acquire(dir, new LogHub({ level: "error", sink: () => {} }).logger(), Date.now());
console.log("held");
setInterval(() => {}, 60_000);
