/**
 * Development Ogg Vorbis writer: decoder-valid silence in one logical stream.
 *
 * Pages (`OggS`, version 0, CRC-32 poly 0x04c11db7 over the page with the CRC
 * field zeroed): page 0 (BOS) holds the 30-byte identification header
 * (channels, sample rate, block sizes 256/2048); page 1 holds the comment
 * header (vendor `chorus-dev`, `TITLE=`) and a minimal setup header (one
 * 2-entry codebook, one floor type 1 without partitions, one residue type 2,
 * one mapping, modes 0 = short and 1 = long); both have granule 0. Audio pages
 * follow with up to 255 one-byte packets each (the first audio page never is the
 * last one): every packet is a long block
 * (mode 1) whose floors are all "unused", i.e. silence. The first audio packet
 * yields no samples and each later one 1024, so a page's granule position is
 * 1024 × (audio packets completed so far - 1); the last page has the EOS flag
 * and granule position = total samples, which trims the final packet.
 * Duration = last page's granule position / sample rate.
 *
 * @module
 */

import { ByteSink, LsbBitWriter, oggCrc32 } from "./dev_audio_bits.ts";
import type { PcmParams } from "./dev_audio_wav.ts";

/** Samples produced by each audio packet after the first (half the long block). */
export const VORBIS_PACKET_SAMPLES = 1024;

function identification(p: PcmParams): Uint8Array {
  const s = new ByteSink();
  s.byte(1);
  s.ascii("vorbis");
  s.le(0, 4); // version
  s.byte(p.channels);
  s.le(p.sampleRate, 4);
  s.le(0, 4); // bitrate maximum (unset)
  s.le(0, 4); // bitrate nominal (unset)
  s.le(0, 4); // bitrate minimum (unset)
  s.byte((11 << 4) | 8); // blocksize_1 = 2048, blocksize_0 = 256
  s.byte(1); // framing
  return s.toBytes();
}

function comment(title: string): Uint8Array {
  const s = new ByteSink();
  const vendor = "chorus-dev";
  const tag = new TextEncoder().encode(`TITLE=${title}`);
  s.byte(3);
  s.ascii("vorbis");
  s.le(vendor.length, 4);
  s.ascii(vendor);
  s.le(1, 4);
  s.le(tag.length, 4);
  s.bytes(tag);
  s.byte(1); // framing
  return s.toBytes();
}

function setup(): Uint8Array {
  const w = new LsbBitWriter();
  w.write(0, 8); // codebooks - 1
  w.write(0x564342, 24); // codebook sync
  w.write(1, 16); // dimensions
  w.write(2, 24); // entries
  w.write(0, 1); // not ordered
  w.write(0, 1); // not sparse
  w.write(0, 5); // entry 0: length 1
  w.write(0, 5); // entry 1: length 1
  w.write(0, 4); // lookup type 0
  w.write(0, 6); // time count - 1
  w.write(0, 16); // time type 0
  w.write(0, 6); // floors - 1
  w.write(1, 16); // floor type 1
  w.write(0, 5); // partitions
  w.write(1, 2); // multiplier - 1
  w.write(10, 4); // range bits: posts 0 and 1024
  w.write(0, 6); // residues - 1
  w.write(2, 16); // residue type 2
  w.write(0, 24); // begin
  w.write(32, 24); // end
  w.write(31, 24); // partition size - 1
  w.write(0, 6); // classifications - 1
  w.write(0, 8); // classbook
  w.write(0, 3); // cascade low bits
  w.write(0, 1); // no high bits
  w.write(0, 6); // mappings - 1
  w.write(0, 16); // mapping type 0
  w.write(0, 1); // one submap
  w.write(0, 1); // no coupling
  w.write(0, 2); // reserved
  w.write(0, 8); // submap 0: time (unused)
  w.write(0, 8); // submap 0: floor 0
  w.write(0, 8); // submap 0: residue 0
  w.write(1, 6); // modes - 1
  for (const blockflag of [0, 1]) {
    w.write(blockflag, 1);
    w.write(0, 16); // window type
    w.write(0, 16); // transform type
    w.write(0, 8); // mapping 0
  }
  w.write(1, 1); // framing
  const bits = w.finish();
  const s = new ByteSink();
  s.byte(5);
  s.ascii("vorbis");
  s.bytes(bits);
  return s.toBytes();
}

function silentPacket(channels: number): Uint8Array {
  const w = new LsbBitWriter();
  w.write(0, 1); // audio packet
  w.write(1, 1); // mode 1 (long block)
  w.write(1, 1); // previous window long
  w.write(1, 1); // next window long
  for (let c = 0; c < channels; c++) w.write(0, 1); // floor unused -> silence
  return w.finish();
}

interface PageInit {
  flags: number;
  granule: number;
  serial: number;
  sequence: number;
  packets: Uint8Array[];
}

function page(init: PageInit): Uint8Array {
  const lacing: number[] = [];
  for (const pk of init.packets) {
    for (let left = pk.length;; left -= 255) {
      lacing.push(Math.min(255, left));
      if (left < 255) break;
    }
  }
  if (lacing.length > 255) throw new RangeError("Cannot build an Ogg page: more than 255 segments");
  const s = new ByteSink();
  s.ascii("OggS");
  s.byte(0);
  s.byte(init.flags);
  s.le(init.granule, 8);
  s.le(init.serial, 4);
  s.le(init.sequence, 4);
  s.le(0, 4); // CRC, filled below
  s.byte(lacing.length);
  for (const l of lacing) s.byte(l);
  for (const pk of init.packets) s.bytes(pk);
  const bytes = s.toBytes();
  const crc = oggCrc32(bytes);
  new DataView(bytes.buffer).setUint32(22, crc, true);
  return bytes;
}

/** Encodes silence as an Ogg Vorbis file; `serial` names the logical stream. */
export function encodeOggVorbis(p: PcmParams, serial: number): Uint8Array {
  if (p.channels < 1 || p.channels > 255) throw new RangeError(`Cannot encode Vorbis: ${p.channels} channels`);
  const out = new ByteSink();
  let sequence = 0;
  out.bytes(page({ flags: 0x02, granule: 0, serial, sequence: sequence++, packets: [identification(p)] }));
  out.bytes(page({ flags: 0, granule: 0, serial, sequence: sequence++, packets: [comment(p.title), setup()] }));
  const packet = silentPacket(p.channels);
  const total = Math.ceil(p.totalSamples / VORBIS_PACKET_SAMPLES) + 1;
  for (let done = 0; done < total;) {
    // The first audio page never carries EOS, so decoders see a page boundary before the end-trimmed one.
    const n = Math.min(255, done === 0 ? total - 1 : total - done);
    done += n;
    const last = done === total;
    const granule = last ? p.totalSamples : (done - 1) * VORBIS_PACKET_SAMPLES;
    const packets = Array.from({ length: n }, () => packet);
    out.bytes(page({ flags: last ? 0x04 : 0, granule, serial, sequence: sequence++, packets }));
  }
  return out.toBytes();
}
