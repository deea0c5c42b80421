import assert from "node:assert/strict";
import { generateAudio } from "../upstream/mod.ts";
import { ByteView, MissingBytes } from "./bytes.ts";
import { OGG_TAIL_BYTES, oggPageCrc, probeOgg } from "./ogg.ts";
import { concat, errorKind, thrown } from "./test_support.ts";

interface Page {
  flags?: number;
  granule: bigint;
  serial?: number;
  seq?: number;
  packet: Uint8Array;
}

/** One Ogg page holding one packet (< 65025 bytes) with a correct CRC. */
function page(p: Page): Uint8Array {
  const lacing: number[] = [];
  for (let left = p.packet.byteLength;; left -= 255) {
    lacing.push(Math.min(255, left));
    if (left < 255) break;
  }
  const b = new Uint8Array(27 + lacing.length + p.packet.byteLength);
  const v = new DataView(b.buffer);
  b.set([0x4f, 0x67, 0x67, 0x53, 0, p.flags ?? 0]);
  v.setBigUint64(6, BigInt.asUintN(64, p.granule), true);
  v.setUint32(14, p.serial ?? 7, true);
  v.setUint32(18, p.seq ?? 0, true);
  b[26] = lacing.length;
  b.set(lacing, 27);
  b.set(p.packet, 27 + lacing.length);
  v.setUint32(22, oggPageCrc(b), true);
  return b;
}

function opusHead(preSkip: number, inputRate: number): Uint8Array {
  const b = new Uint8Array(19);
  b.set(new TextEncoder().encode("OpusHead"));
  const v = new DataView(b.buffer);
  b[8] = 1;
  b[9] = 2;
  v.setUint16(10, preSkip, true);
  v.setUint32(12, inputRate, true);
  return b;
}

function opusFile(pages: Page[]): Uint8Array {
  const head = page({ flags: 2, granule: 0n, packet: opusHead(312, 44100) });
  const tags = page({ granule: 0n, seq: 1, packet: new TextEncoder().encode("OpusTags\0\0\0\0\0\0\0\0") });
  return concat(head, tags, ...pages.map((p, i) => page({ seq: i + 2, ...p })));
}

Deno.test("probeOgg reads generated Vorbis files exactly", async (t) => {
  for (const [rate, channels, secs] of [[44100, 2, 30], [48000, 1, 95.3], [22050, 2, 0.2]] as const) {
    await t.step(`${rate} Hz × ${channels}, ${secs} s`, () => {
      const a = generateAudio({ format: "ogg", durationSecs: secs, sampleRate: rate, channels });
      assert.deepEqual(probeOgg(ByteView.of(a.bytes)), {
        format: "ogg",
        durationSecs: a.durationSecs,
        sampleRate: rate,
      });
    });
  }
});

Deno.test("probeOgg reads Opus: 48 kHz granules minus pre-skip", () => {
  const file = opusFile([{ granule: 48000n * 5n, packet: new Uint8Array(40) }, {
    flags: 4,
    granule: 48000n * 10n + 312n,
    packet: new Uint8Array(40),
  }]);
  assert.deepEqual(probeOgg(ByteView.of(file)), { format: "ogg", durationSecs: 10, sampleRate: 44100 });
});

Deno.test("probeOgg takes the last valid page of its own stream", async (t) => {
  const ours = { granule: 48000n * 20n + 312n, packet: new Uint8Array(100) };
  await t.step("a later page of another stream is ignored", () => {
    const other = page({ serial: 99, granule: 48000n * 999n, packet: new Uint8Array(10) });
    assert.equal(probeOgg(ByteView.of(concat(opusFile([ours]), other))).durationSecs, 20);
  });
  await t.step("a page without a finished packet (granule -1) is skipped", () => {
    assert.equal(
      probeOgg(ByteView.of(opusFile([ours, { granule: -1n, packet: new Uint8Array(300) }]))).durationSecs,
      20,
    );
  });
  await t.step("an OggS lookalike inside packet data fails its CRC", () => {
    const fake = page({ granule: 48000n * 500n, packet: new Uint8Array(10) });
    const data = concat(new Uint8Array(50), fake, new Uint8Array(50));
    assert.equal(
      probeOgg(ByteView.of(opusFile([ours, { granule: 48000n * 30n + 312n, packet: data }]))).durationSecs,
      30,
    );
  });
  await t.step("a truncated final page falls back to the previous one", () => {
    const file = opusFile([ours, { granule: 48000n * 40n + 312n, packet: new Uint8Array(500) }]);
    assert.equal(probeOgg(ByteView.of(file.subarray(0, file.byteLength - 100))).durationSecs, 20);
  });
});

Deno.test("probeOgg needs only the head and the last 64 KiB", () => {
  const big = Array.from(
    { length: 6 },
    (_, i) => ({ granule: BigInt(48000 * (i + 1) + 312), packet: new Uint8Array(60_000) }),
  );
  const file = opusFile(big);
  const view = new ByteView(file.byteLength);
  view.add(0, file.subarray(0, 4096));
  const need = thrown(() => probeOgg(view));
  assert.ok(need instanceof MissingBytes);
  assert.deepEqual([need.start, need.length], [file.byteLength - OGG_TAIL_BYTES, OGG_TAIL_BYTES]);
  view.add(need.start, file.subarray(need.start));
  assert.equal(probeOgg(view).durationSecs, 6);
});

Deno.test("probeOgg rejects other streams and damaged files", async (t) => {
  const vorbis = generateAudio({ format: "ogg", durationSecs: 3 }).bytes;
  const notBos = vorbis.slice();
  notBos[5] = 0;
  const badCrc = vorbis.slice();
  badCrc[badCrc.byteLength - 1]! ^= 0xff;
  const theora = page({ flags: 2, granule: 0n, packet: new TextEncoder().encode("\x80theora") });
  const cases: [string, Uint8Array, string][] = [
    ["not Ogg", new TextEncoder().encode("OggX".padEnd(64, "\0")), "bad_audio"],
    ["first page not BOS", notBos, "bad_audio"],
    ["truncated first page", vorbis.subarray(0, 20), "bad_audio"],
    [
      "neither Vorbis nor Opus",
      concat(theora, page({ flags: 4, granule: 100n, packet: new Uint8Array(4) })),
      "unsupported",
    ],
    ["cut inside the second page", vorbis.subarray(0, 58 + 40), "bad_audio"],
    ["only header pages (granule 0)", opusFile([]), "bad_audio"],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.equal(errorKind(() => probeOgg(ByteView.of(bytes))), expected));
  }
  await t.step("a damaged last page falls back to the one before", () => {
    const d = probeOgg(ByteView.of(badCrc)).durationSecs;
    assert.ok(d > 0 && d < 3, `got ${d}`);
  });
});
