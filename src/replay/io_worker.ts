/**
 * The thread of {@link WorkerIo} (`worker_io.ts`): runs the file operations
 * of each batch in order, the quick ones (open, write, close, markers)
 * synchronously -- a write into the page cache costs this thread less than
 * an asynchronous operation costs the game's -- and fsyncs asynchronously so
 * that many run at once and none holds up the writes behind it. Operations
 * on one file never overlap: one waiting for an fsync of its file runs after it.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { dirname } from "node:path";
import { type Batch, FIELDS, hasPath, OP, type Results, UNANSWERED } from "./io_protocol.ts";

/** One operation of a batch, read off its numbers. */
interface Op {
  readonly id: number;
  readonly code: number;
  readonly file: number;
  readonly at: number;
  readonly bytes: Uint8Array;
  readonly path: string;
}

const files = new Map<number, Deno.FsFile>();
/** The first failed unanswered append of each file: its next sync fails with it. */
const lost = new Map<number, unknown>();
/** Files with an fsync in flight, and what runs after it. */
const busy = new Map<number, Promise<void>>();
let ok: number[] = [];
let failed: Results["failed"] = [];
let posting = false;

function post(): void {
  posting = false;
  if (!ok.length && !failed.length) return;
  const results: Results = { ok, failed };
  ok = [];
  failed = [];
  self.postMessage(results);
}

function settle(id: number, error?: unknown): void {
  if (id === UNANSWERED) return;
  if (error === undefined) ok.push(id);
  else {
    const name = error instanceof Error ? error.name : "Error";
    failed.push([id, name, error instanceof Error ? error.message : String(error)]);
  }
  if (!posting) {
    posting = true;
    // fsyncs finish one by one: their results go back together, a few milliseconds later.
    setTimeout(post, 4);
  }
}

function fileOf(id: number): Deno.FsFile {
  const file = files.get(id);
  if (!file) throw new Error(`file ${id} is not open`);
  return file;
}

function writeAll(file: Deno.FsFile, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += file.writeSync(bytes.subarray(at));
}

/** Runs one operation; returns a promise only for an fsync. */
function run(op: Op): Promise<void> | void {
  const { code, file: id, at, bytes, path } = op;
  switch (code) {
    case OP.create: {
      Deno.mkdirSync(dirname(path), { recursive: true });
      const file = Deno.openSync(path, { write: true, createNew: true });
      try {
        writeAll(file, bytes);
      } catch (error) {
        file.close();
        throw error;
      }
      files.set(id, file);
      return;
    }
    case OP.write:
      return writeAll(fileOf(id), bytes);
    case OP.writeAt: {
      const file = fileOf(id);
      file.seekSync(at, Deno.SeekMode.Start);
      writeAll(file, bytes);
      file.seekSync(0, Deno.SeekMode.End);
      return;
    }
    case OP.sync:
      if (lost.has(id)) throw lost.get(id);
      return fileOf(id).syncData();
    case OP.close:
      lost.delete(id);
      fileOf(id).close();
      files.delete(id);
      return;
    case OP.touch:
      return Deno.writeFileSync(path, bytes);
    case OP.mkdir:
      return Deno.mkdirSync(path, { recursive: true });
    case OP.remove:
      try {
        Deno.removeSync(path);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      return;
    default:
      throw new Error(`unknown operation ${code}`);
  }
}

function start(op: Op): void {
  const { id, file } = op;
  if (id === UNANSWERED) {
    // An append nobody waits for: a failure waits for the file's next sync (after the other operations on the file).
    const fail = (error: unknown): void => void (lost.has(file) || lost.set(file, error));
    const before = busy.get(file);
    if (before) {
      const after = before.then(() => run(op)).catch(fail);
      busy.set(file, after);
      void after.then(() => busy.get(file) === after && busy.delete(file));
      return;
    }
    try {
      run(op);
    } catch (error) {
      fail(error);
    }
    return;
  }
  const before = busy.get(file);
  if (before) {
    // After the fsync of its file: chained, and this file stays busy until it has run.
    const after = before.then(() => run(op)).then(() => settle(id), (error) => settle(id, error));
    busy.set(file, after);
    void after.then(() => busy.get(file) === after && busy.delete(file));
    return;
  }
  try {
    const pending = run(op);
    if (!pending) return settle(id);
    const after = pending.then(() => settle(id), (error) => settle(id, error));
    busy.set(file, after);
    void after.then(() => busy.get(file) === after && busy.delete(file));
  } catch (error) {
    settle(id, error);
  }
}

self.onmessage = (e: MessageEvent<Batch>) => {
  const { count, paths } = e.data;
  const nums = new Float64Array(e.data.nums);
  const data = new Uint8Array(e.data.bytes);
  let next = 0;
  for (let i = 0; i < count; i++) {
    const o = i * FIELDS;
    const code = nums[o + 1]!;
    const begin = nums[o + 4]!;
    start({
      id: nums[o]!,
      code,
      file: nums[o + 2]!,
      at: nums[o + 3]!,
      bytes: data.subarray(begin, begin + nums[o + 5]!),
      path: hasPath(code) ? paths[next++]! : "",
    });
  }
};
