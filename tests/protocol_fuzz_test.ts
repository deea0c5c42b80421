/**
 * Fuzzing the decoder with random and mutated frames (issue 2 §3): the
 * decoder may only ever throw ProtocolError, must finish, and must not build
 * values larger than their input allows.
 */
import { equal, ok } from "node:assert/strict";
import {
  decodeClientCommand,
  decodeServerCommand,
  FrameDecoder,
  MAX_FRAME_PAYLOAD,
  ProtocolError,
} from "../src/protocol/mod.ts";
import { randomInt, SeededRandom } from "../src/util/random.ts";
import { CLIENT_VECTORS, EDGE_CASES, hex, SERVER_VECTORS } from "./fixtures/golden_vectors.ts";

const ITERATIONS = Number(Deno.env.get("FUZZ_ITERATIONS") ?? 100_000);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20261122);

const corpus: Uint8Array[] = [
  ...CLIENT_VECTORS.map(([, , f]) => hex(f)),
  ...SERVER_VECTORS.map(([, , f]) => hex(f)),
];
const payloadCorpus: Uint8Array[] = [
  ...corpus.map((f) => f.subarray(f[0]! >= 0x80 ? 2 : 1)),
  ...EDGE_CASES.map(([p]) => hex(p)),
];

function mutate(rng: SeededRandom, input: Uint8Array): Uint8Array {
  const bytes = [...input];
  const rounds = 1 + randomInt(rng, 4);
  for (let i = 0; i < rounds; i++) {
    const at = randomInt(rng, bytes.length + 1);
    switch (randomInt(rng, 7)) {
      case 0: // flip a bit
        if (bytes.length) bytes[at % bytes.length]! ^= 1 << randomInt(rng, 8);
        break;
      case 1: // random byte
        if (bytes.length) bytes[at % bytes.length] = randomInt(rng, 256);
        break;
      case 2: // insert bytes
        bytes.splice(at, 0, ...Array.from({ length: 1 + randomInt(rng, 4) }, () => randomInt(rng, 256)));
        break;
      case 3: // delete bytes
        bytes.splice(at, 1 + randomInt(rng, 3));
        break;
      case 4: // truncate
        bytes.length = Math.min(bytes.length, at);
        break;
      case 5: // huge ULEB count
        bytes.splice(at, 0, 0xff, 0xff, 0xff, 0xff, 0x0f);
        break;
      default: // interesting byte
        if (bytes.length) bytes[at % bytes.length] = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x14, 0x15][randomInt(rng, 7)]!;
    }
  }
  return new Uint8Array(bytes);
}

function randomBytes(rng: SeededRandom, max: number): Uint8Array {
  const out = new Uint8Array(randomInt(rng, max + 1));
  for (let i = 0; i < out.length; i++) out[i] = randomInt(rng, 256);
  return out;
}

/** Decoded values can never hold more elements than their payload had bytes. */
function countItems(value: unknown, depth = 0): number {
  if (depth > 32) return 0;
  if (Array.isArray(value)) return value.length + value.reduce((n: number, v) => n + countItems(v, depth + 1), 0);
  if (value instanceof Map) {
    return value.size + [...value.values()].reduce((n: number, v) => n + countItems(v, depth + 1), 0);
  }
  if (value && typeof value === "object" && !(value instanceof Uint8Array)) {
    return Object.values(value).reduce((n: number, v) => n + countItems(v, depth + 1), 0);
  }
  return 0;
}

function decodeBoth(payload: Uint8Array, stats: { ok: number; malformed: number }): void {
  for (const decode of [decodeClientCommand, decodeServerCommand]) {
    try {
      const value = decode(payload);
      ok(countItems(value) <= payload.length * 2, "decoded value larger than its input");
      stats.ok++;
    } catch (e) {
      if (!(e instanceof ProtocolError)) {
        throw new Error(`decoder threw ${e} for ${[...payload].map((b) => b.toString(16)).join(" ")}`);
      }
      stats.malformed++;
    }
  }
}

Deno.test(`decoder survives ${ITERATIONS} random and mutated frames (seed ${SEED})`, () => {
  const rng = new SeededRandom(SEED);
  const stats = { ok: 0, malformed: 0, frames: 0 };
  let decoder = new FrameDecoder(64);
  for (let i = 0; i < ITERATIONS; i++) {
    const kind = i % 4;
    if (kind === 3) {
      // Whole-stream path: mutated frames through the frame splitter in random chunks.
      const stream = mutate(rng, corpus[randomInt(rng, corpus.length)]!);
      let at = 0;
      try {
        while (at < stream.length) {
          const n = 1 + randomInt(rng, 16);
          decoder.push(stream.subarray(at, at + n));
          at += n;
          for (let p = decoder.next(); p; p = decoder.next()) {
            stats.frames++;
            ok(p.length <= MAX_FRAME_PAYLOAD);
            decodeBoth(p, stats);
          }
        }
      } catch (e) {
        if (!(e instanceof ProtocolError)) throw e;
        stats.malformed++;
      }
      // A connection that sent malformed framing is closed; model that with a fresh decoder
      // once it holds leftovers, so later iterations start clean.
      ok(decoder.buffered <= MAX_FRAME_PAYLOAD + 5 + 16);
      if (decoder.buffered > 0) decoder = new FrameDecoder(64);
    } else if (kind === 2) {
      decodeBoth(randomBytes(rng, 64), stats);
    } else {
      decodeBoth(mutate(rng, payloadCorpus[randomInt(rng, payloadCorpus.length)]!), stats);
    }
  }
  ok(stats.ok > 1000, `too few valid decodes (${stats.ok}): the mutator is not exercising success paths`);
  ok(stats.malformed > 1000, `too few malformed inputs (${stats.malformed})`);
  equal(typeof stats.frames, "number");
});
