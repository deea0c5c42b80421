/**
 * Caps the linear memory of a core WebAssembly module (spec 3 §8: plugin
 * memory 64 MB). A component defines its own memory, so the host cannot hand
 * it a `WebAssembly.Memory` with a maximum; instead the memory section of
 * each core module is rewritten before compilation so every memory it
 * defines has `maximum <= cap` pages. `memory.grow` past the cap then fails
 * inside the guest (it returns -1) instead of taking the host's memory.
 *
 * Only the section framing and the limits are touched (binary format
 * §5.5.2 section framing, §5.3.8 limits); everything else is copied.
 *
 * @module
 */

/** Bytes of one WebAssembly page. */
export const PAGE_BYTES = 65536;

/** A module that cannot run under the cap. */
export class MemoryLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemoryLimitError";
  }
}

function readU32(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  for (let i = at; i < bytes.length && i < at + 5; i++) {
    const byte = bytes[i]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
    shift += 7;
  }
  throw new MemoryLimitError("Cannot read the module: a malformed LEB128 number");
}

function writeU32(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    let byte = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Rewrites the memory section's limits; returns the new section content. */
function capMemories(content: Uint8Array, maxPages: number): number[] {
  const { value: count, next } = readU32(content, 0);
  const out = writeU32(count);
  let at = next;
  for (let i = 0; i < count; i++) {
    const flags = content[at++];
    if (flags === undefined) throw new MemoryLimitError("Cannot read the module: truncated memory section");
    if (flags & 0x04) throw new MemoryLimitError("Cannot run the plugin: 64-bit memories are not supported");
    const min = readU32(content, at);
    at = min.next;
    let max: number | null = null;
    if (flags & 0x01) {
      const m = readU32(content, at);
      max = m.value;
      at = m.next;
    }
    if (min.value > maxPages) {
      throw new MemoryLimitError(
        `Cannot run the plugin: it needs ${min.value * PAGE_BYTES / 1048576} MiB of memory at start, ` +
          `more than max_memory_mb (${maxPages * PAGE_BYTES / 1048576})`,
      );
    }
    // Keep the shared bit (0x02); always write a maximum.
    out.push(flags | 0x01, ...writeU32(min.value), ...writeU32(Math.min(max ?? maxPages, maxPages)));
  }
  if (at !== content.length) throw new MemoryLimitError("Cannot read the module: trailing bytes in the memory section");
  return out;
}

/**
 * The module with every memory it defines capped at `maxPages` pages.
 * Throws a {@link MemoryLimitError} when the module needs more at start or
 * cannot be read.
 */
export function limitMemory(module: Uint8Array, maxPages: number): Uint8Array {
  if (module.length < 8 || module[0] !== 0 || module[1] !== 0x61 || module[2] !== 0x73 || module[3] !== 0x6d) {
    throw new MemoryLimitError("Cannot read the module: not a WebAssembly binary");
  }
  const parts: Uint8Array[] = [module.subarray(0, 8)];
  let at = 8;
  while (at < module.length) {
    const id = module[at]!;
    const size = readU32(module, at + 1);
    const end = size.next + size.value;
    if (end > module.length) throw new MemoryLimitError("Cannot read the module: a section runs past the end");
    if (id === 5) {
      const content = capMemories(module.subarray(size.next, end), maxPages);
      parts.push(new Uint8Array([5, ...writeU32(content.length), ...content]));
    } else {
      parts.push(module.subarray(at, end));
    }
    at = end;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
