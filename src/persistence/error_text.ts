/**
 * Text for anything thrown at the persistence layer (issue 14
 * "Diagnostics"). PGlite's file system layer (Emscripten; read only to
 * convert an old store, `backends/pglite_convert.ts`) throws plain
 * objects such as `{ name: "ErrnoError", errno: 51 }`, not `Error`s, which
 * `String()` turned into `Cannot open the database: [object Object]` when
 * the disk was full. Such errors are named here (`no space left on device
 * (ENOSPC)`), so the operator reads what failed.
 *
 * @module
 */

/** Emscripten errno numbers (WASI numbering, as PGlite's build uses) of the failures an operator can act on. */
const EMSCRIPTEN_ERRNO: Readonly<Record<number, readonly [code: string, text: string]>> = {
  2: ["EACCES", "permission denied"],
  19: ["EDQUOT", "disk quota exceeded"],
  20: ["EEXIST", "file exists"],
  29: ["EIO", "input/output error"],
  31: ["EISDIR", "is a directory"],
  44: ["ENOENT", "no such file or directory"],
  48: ["ENOMEM", "out of memory"],
  51: ["ENOSPC", "no space left on device"],
  54: ["ENOTDIR", "not a directory"],
  63: ["EPERM", "operation not permitted"],
  69: ["EROFS", "read-only file system"],
};

/** A short text for any thrown value: an error's message, a file system errno by name, or the object's fields. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error !== "object" || error === null) return String(error);
  const o = error as { name?: unknown; errno?: unknown; message?: unknown; code?: unknown };
  if (typeof o.errno === "number") {
    const known = EMSCRIPTEN_ERRNO[o.errno];
    const name = typeof o.name === "string" ? o.name : "error";
    return known ? `${known[1]} (${known[0]})` : `file system ${name} ${o.errno}`;
  }
  if (typeof o.message === "string") return o.message;
  try {
    const json = JSON.stringify(error);
    return json.length > 200 ? `${json.slice(0, 200)}\u2026` : json;
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/** True when an error text says the disk (or the quota) is full. */
export function isDiskFull(text: string): boolean {
  // SQLite says "database or disk is full" (SQLITE_FULL).
  return /ENOSPC|EDQUOT|No space left|os error 28|disk quota|disk is full/i.test(text);
}
