/**
 * Bit writers and checksums for the development audio encoders: MSB-first
 * bits (FLAC, MP3), LSB-first bits (Vorbis), FLAC's CRC-8/CRC-16 and Ogg's CRC-32.
 *
 * @module
 */

/** Growable byte buffer. */
export class ByteSink {
  #buf = new Uint8Array(256);
  #len = 0;

  /** Bytes written so far. */
  get length(): number {
    return this.#len;
  }

  #ensure(extra: number): void {
    if (this.#len + extra <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  /** Appends one byte. */
  byte(b: number): void {
    this.#ensure(1);
    this.#buf[this.#len++] = b & 0xff;
  }

  /** Appends bytes. */
  bytes(b: Uint8Array): void {
    this.#ensure(b.length);
    this.#buf.set(b, this.#len);
    this.#len += b.length;
  }

  /** Appends ASCII text. */
  ascii(text: string): void {
    for (let i = 0; i < text.length; i++) this.byte(text.charCodeAt(i));
  }

  /** Little-endian unsigned integer of `n` bytes (n <= 6). */
  le(value: number, n: number): void {
    for (let i = 0; i < n; i++) this.byte(Math.floor(value / 2 ** (8 * i)));
  }

  /** Big-endian unsigned integer of `n` bytes (n <= 6). */
  be(value: number, n: number): void {
    for (let i = n - 1; i >= 0; i--) this.byte(Math.floor(value / 2 ** (8 * i)));
  }

  /** A copy of the bytes written. */
  toBytes(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }
}

/** Writes bits most-significant first (FLAC, MPEG audio). */
export class MsbBitWriter {
  readonly #out = new ByteSink();
  #acc = 0;
  #n = 0;

  /** Appends the low `bits` bits of `value` (bits <= 48, value >= 0). */
  write(value: number, bits: number): void {
    for (let i = bits - 1; i >= 0; i--) {
      const bit = Math.floor(value / 2 ** i) & 1;
      this.#acc = (this.#acc << 1) | bit;
      if (++this.#n === 8) {
        this.#out.byte(this.#acc);
        this.#acc = 0;
        this.#n = 0;
      }
    }
  }

  /** Pads with zero bits to a byte boundary and returns the bytes. */
  finish(): Uint8Array {
    if (this.#n > 0) this.write(0, 8 - this.#n);
    return this.#out.toBytes();
  }
}

/** Writes bits least-significant first (Vorbis packets). */
export class LsbBitWriter {
  readonly #out = new ByteSink();
  #acc = 0;
  #n = 0;

  /** Appends the low `bits` bits of `value` (bits <= 32, value >= 0). */
  write(value: number, bits: number): void {
    for (let i = 0; i < bits; i++) {
      const bit = Math.floor(value / 2 ** i) & 1;
      this.#acc |= bit << this.#n;
      if (++this.#n === 8) {
        this.#out.byte(this.#acc);
        this.#acc = 0;
        this.#n = 0;
      }
    }
  }

  /** Pads with zero bits to a byte boundary and returns the bytes. */
  finish(): Uint8Array {
    if (this.#n > 0) this.write(0, 8 - this.#n);
    return this.#out.toBytes();
  }
}

function msbTable(poly: number, width: number): Uint32Array {
  const top = 2 ** (width - 1);
  const mask = 2 ** width - 1;
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i * 2 ** (width - 8);
    for (let k = 0; k < 8; k++) c = c >= top ? (((c - top) * 2) ^ poly) >>> 0 : c * 2;
    table[i] = (c & mask) >>> 0;
  }
  return table;
}

const CRC8_TABLE = msbTable(0x07, 8);
const CRC16_TABLE = msbTable(0x8005, 16);
const CRC32_TABLE = msbTable(0x04c11db7, 32);

/** FLAC frame-header CRC-8 (polynomial 0x07, initial 0). */
export function crc8(data: Uint8Array): number {
  let c = 0;
  for (const b of data) c = CRC8_TABLE[c ^ b]!;
  return c;
}

/** FLAC frame CRC-16 (polynomial 0x8005, initial 0, not reflected). */
export function crc16(data: Uint8Array): number {
  let c = 0;
  for (const b of data) c = ((c << 8) & 0xffff) ^ CRC16_TABLE[(c >> 8) ^ b]!;
  return c;
}

/** Ogg page CRC-32 (polynomial 0x04c11db7, initial 0, not reflected, no final xor). */
export function oggCrc32(data: Uint8Array): number {
  let c = 0;
  for (const b of data) c = ((c << 8) ^ CRC32_TABLE[((c >>> 24) ^ b) & 0xff]!) >>> 0;
  return c >>> 0;
}
