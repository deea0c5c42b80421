import { Buffer } from "node:buffer";
import {
  deepEqual as assertEquals,
  notStrictEqual as assertNotStrictEquals,
  ok as assert,
  strictEqual as assertStrictEquals,
} from "node:assert/strict";
import {
  ClientCommand,
  decodeClientCommand,
  encodeValue,
  type JudgeEvent,
  Judgement,
  JudgesCommand,
  ProtocolError,
  readClientCommand,
  telemetryItems,
  TouchesCommand,
  type TouchFrame,
} from "./mod.ts";

/** A small deterministic generator (xorshift32), so a failure reproduces. */
function rng(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

function touchesPayload(random: () => number): Uint8Array {
  const frames: TouchFrame[] = Array.from({ length: Math.floor(random() * 25) }, () => ({
    time: Math.fround(random() * 100),
    points: Array.from(
      { length: Math.floor(random() * 4) },
      () =>
        [Math.floor(random() * 10) - 5, { x: random() - 0.5, y: random() - 0.5 }] as [number, { x: number; y: number }],
    ),
  }));
  return encodeValue(ClientCommand, { type: "Touches", frames });
}

function judgesPayload(random: () => number): Uint8Array {
  const judges: JudgeEvent[] = Array.from({ length: Math.floor(random() * 20) }, () => ({
    time: Math.fround(random() * 100),
    line_id: Math.floor(random() * 50),
    note_id: Math.floor(random() * 5000),
    judgement: Judgement.names[Math.floor(random() * Judgement.names.length)]!,
  }));
  return encodeValue(ClientCommand, { type: "Judges", judges });
}

/**
 * The outcome of a read: the value (items materialized) or the error's
 * message. Materializing happens outside the `try`: a view is returned only
 * for a payload the decoder takes, so its lazy decoding must never throw.
 */
function outcome(read: () => unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  let cmd: unknown;
  try {
    cmd = read();
  } catch (error) {
    assert(error instanceof ProtocolError, `not a ProtocolError: ${error}`);
    return { ok: false, error: error.message };
  }
  const value = cmd instanceof TouchesCommand
    ? { type: cmd.type, frames: cmd.frames }
    : cmd instanceof JudgesCommand
    ? { type: cmd.type, judges: cmd.judges }
    : cmd;
  return { ok: true, value };
}

Deno.test("telemetry view: frames and judges decode on access to what the schema decodes, with the counts", () => {
  const random = rng(7);
  for (let i = 0; i < 300; i++) {
    const payload = i % 2 ? touchesPayload(random) : judgesPayload(random);
    const eager = decodeClientCommand(payload);
    const view = readClientCommand(payload, true);
    assertStrictEquals(view.type, eager.type);
    if (eager.type === "Touches") {
      assert(view instanceof TouchesCommand);
      assertEquals(view.count, eager.frames.length);
      assertEquals(view.items, eager.frames.length + eager.frames.reduce((n, f) => n + f.points.length, 0));
      assertEquals(view.frames, eager.frames);
      assertStrictEquals(view.frames, view.frames, "decoded once");
    } else if (eager.type === "Judges") {
      assert(view instanceof JudgesCommand);
      assertEquals([view.count, view.items], [eager.judges.length, eager.judges.length]);
      assertEquals(view.judges, eager.judges);
    }
    assertEquals(telemetryItems(view as never), telemetryItems(eager as never));
    assertStrictEquals((view as TouchesCommand | JudgesCommand).raw, payload, "an owned exact payload is kept");
  }
});

Deno.test("telemetry view: a borrowed payload or one with trailing bytes is copied without them", () => {
  const payload = touchesPayload(rng(3));
  const withTail = new Uint8Array([...payload, 9, 9, 9]);
  // A Node Buffer (what a socket delivers) too: its own `slice` would be a view of the chunk.
  const chunk = Buffer.from([...payload, 9, 9, 9]);
  for (const [bytes, owned] of [[payload, false], [withTail, true], [withTail, false], [chunk, true]] as const) {
    const view = readClientCommand(bytes, owned) as TouchesCommand;
    assertEquals(view.raw, payload);
    assertNotStrictEquals(view.raw.buffer, bytes.buffer);
  }
});

Deno.test("telemetry view: refuses exactly what the decoder refuses, with its error (truncations and mutations)", () => {
  const random = rng(11);
  let refused = 0;
  for (let i = 0; i < 400; i++) {
    const valid = i % 2 ? touchesPayload(random) : judgesPayload(random);
    const variants: Uint8Array[] = [];
    for (let cut = 1; cut < valid.length; cut += 1 + Math.floor(random() * 3)) variants.push(valid.slice(0, cut));
    for (let k = 0; k < 6; k++) {
      const mutated = valid.slice();
      const at = 1 + Math.floor(random() * Math.max(1, mutated.length - 1));
      if (at < mutated.length) mutated[at] = Math.floor(random() * 256);
      variants.push(mutated);
    }
    // Hostile counts: far more elements than bytes, and ULEB128 prefixes that never end or overflow.
    variants.push(new Uint8Array([valid[0]!, 0xff, 0xff, 0xff, 0x0f]));
    variants.push(new Uint8Array([valid[0]!, ...new Array(11).fill(0xff)]));
    variants.push(new Uint8Array([valid[0]!, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]));
    for (const bytes of variants) {
      const expected = outcome(() => decodeClientCommand(bytes));
      assertEquals(outcome(() => readClientCommand(bytes, false)), expected, `payload ${bytes.join(",")}`);
      if (!expected.ok) refused++;
    }
  }
  assert(refused > 1000, `the fuzzing refused only ${refused} payloads`);
});

Deno.test("telemetry view: an invalid judgement is refused as the decoder refuses it", () => {
  const bytes = encodeValue(ClientCommand, {
    type: "Judges",
    judges: [{ time: 1, line_id: 2, note_id: 3, judgement: "Perfect" }],
  });
  bytes[bytes.length - 1] = Judgement.names.length;
  const expected = outcome(() => decodeClientCommand(bytes));
  assertEquals(expected, { ok: false, error: `invalid enum: ${Judgement.names.length}` });
  assertEquals(outcome(() => readClientCommand(bytes, true)), expected);
});

Deno.test("telemetry view: other commands are decoded as before", () => {
  for (
    const cmd of [
      { type: "Ping" },
      { type: "Chat", message: "hi" },
      { type: "JoinRoom", id: "r1", monitor: true },
      { type: "Played", id: 42 },
    ] as const
  ) {
    const value = readClientCommand(encodeValue(ClientCommand, cmd), true);
    assertEquals(value, cmd);
    assert(!(value instanceof TouchesCommand) && !(value instanceof JudgesCommand));
  }
  assertEquals(
    outcome(() => readClientCommand(new Uint8Array([250]), true)),
    outcome(() => decodeClientCommand(new Uint8Array([250]))),
  );
});
