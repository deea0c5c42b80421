/**
 * Plugin files (capabilities `file.read`, `file.write`): `api-call("file.read"
 * | "file.write" | "file.list" | "file.delete", ...)` reach only the calling
 * plugin's own directory `<data_dir>/plugins/<id>/files/`; a path is
 * relative, of plain names separated by `/` (no `..`, no absolute paths, no
 * hidden names), and a file is at most `max_file_bytes`. Writes are atomic.
 * Symbolic links are not followed out of the directory: every component is
 * checked to be a plain directory or file.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** A file operation that is refused; its message is the plugin's error. */
export class FileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FileError";
  }
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** Deepest path. */
const MAX_DEPTH = 8;

/** Checks a relative path; returns its parts. */
export function safeParts(path: string): string[] {
  const parts = path.split("/").filter((p) => p !== "");
  if (
    !parts.length || parts.length > MAX_DEPTH || path.startsWith("/") ||
    parts.some((p) => !NAME.test(p) || p.includes(".."))
  ) {
    throw new FileError(
      `invalid path "${path}": use up to ${MAX_DEPTH} names of letters, digits, "_", "-" and "." separated by "/" (no "..", not absolute)`,
    );
  }
  return parts;
}

/** One plugin's files. */
export class PluginFiles {
  readonly root: string;
  readonly #maxBytes: number;

  constructor(root: string, maxBytes: number) {
    this.root = root;
    this.#maxBytes = maxBytes;
  }

  async #resolve(path: string): Promise<string> {
    const parts = safeParts(path);
    let at = this.root;
    for (const part of parts.slice(0, -1)) {
      at = `${at}/${part}`;
      const info = await Deno.lstat(at).catch(() => null);
      if (info && !info.isDirectory) throw new FileError(`"${path}": ${part} is not a directory`);
    }
    const full = `${this.root}/${parts.join("/")}`;
    const info = await Deno.lstat(full).catch(() => null);
    if (info?.isSymlink) throw new FileError(`"${path}" is a link`);
    return full;
  }

  /** The file's content (UTF-8 text, or base64 with `base64`). */
  async read(path: string, encoding: "utf8" | "base64"): Promise<string> {
    const full = await this.#resolve(path);
    const info = await Deno.stat(full).catch(() => null);
    if (!info?.isFile) throw new FileError(`no file "${path}"`);
    if (info.size > this.#maxBytes) throw new FileError(`"${path}" is larger than max_file_bytes (${this.#maxBytes})`);
    const bytes = await Deno.readFile(full);
    return encoding === "base64" ? Buffer.from(bytes).toString("base64") : new TextDecoder().decode(bytes);
  }

  /** Writes a file atomically; returns its size. */
  async write(path: string, content: string, encoding: "utf8" | "base64"): Promise<number> {
    const bytes = encoding === "base64"
      ? new Uint8Array(Buffer.from(content, "base64"))
      : new TextEncoder().encode(content);
    if (bytes.length > this.#maxBytes) {
      throw new FileError(`the content is larger than max_file_bytes (${this.#maxBytes})`);
    }
    const full = await this.#resolve(path);
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    const temp = `${full}.tmp-${crypto.randomUUID().slice(0, 8)}`;
    try {
      await Deno.writeFile(temp, bytes);
      await Deno.rename(temp, full);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
    return bytes.length;
  }

  /** Removes a file; false when there was none. */
  async delete(path: string): Promise<boolean> {
    const full = await this.#resolve(path);
    try {
      await Deno.remove(full);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  /** Files (relative paths) under the root, at most `limit`. */
  async list(limit = 1000): Promise<{ path: string; size: number }[]> {
    const out: { path: string; size: number }[] = [];
    const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
      if (depth > MAX_DEPTH) return;
      let entries: Deno.DirEntry[];
      try {
        entries = await Array.fromAsync(Deno.readDir(dir));
      } catch {
        return;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (out.length >= limit || e.name.includes(".tmp-")) continue;
        const rel = prefix ? `${prefix}/${e.name}` : e.name;
        if (e.isDirectory) await walk(`${dir}/${e.name}`, rel, depth + 1);
        else if (e.isFile) out.push({ path: rel, size: (await Deno.stat(`${dir}/${e.name}`)).size });
      }
    };
    await walk(this.root, "", 1);
    return out;
  }
}
