import { deepEqual, equal } from "node:assert/strict";
import net from "node:net";
import { WriteBatch } from "./write_batch.ts";

/** A connected pair on loopback: the server's socket and a client that collects what it reads. */
async function pair(): Promise<{ socket: net.Socket; received: () => Uint8Array; close: () => Promise<void> }> {
  const { promise: accepted, resolve } = Promise.withResolvers<net.Socket>();
  const server = net.createServer(resolve);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const conn = await Deno.connect({ port: (server.address() as net.AddressInfo).port });
  const socket = await accepted;
  const chunks: Uint8Array[] = [];
  const reading = (async () => {
    for await (const c of conn.readable) chunks.push(c);
  })();
  return {
    socket,
    received: () => new Uint8Array(chunks.flatMap((c) => [...c])),
    close: async () => {
      socket.destroy();
      await reading.catch(() => {});
      await new Promise((ok) => server.close(ok));
    },
  };
}

Deno.test("a socket's frames of one turn go out together, in order, each with its callback", async () => {
  const p = await pair();
  const batch = new WriteBatch();
  const done: number[] = [];
  batch.write(p.socket, new Uint8Array([1, 2]), () => done.push(1));
  batch.write(p.socket, new Uint8Array([3]), () => done.push(2));
  batch.write(p.socket, new Uint8Array([4, 5, 6]), () => done.push(3));
  // Nothing is written before the turn ends: the three frames wait in the socket's buffer.
  equal(batch.pending, 1);
  equal(p.socket.writableLength, 6);
  equal(p.socket.writableCorked, 1);
  const { promise: written, resolve } = Promise.withResolvers<void>();
  batch.write(p.socket, new Uint8Array([7]), () => resolve());
  await written;
  deepEqual(done, [1, 2, 3]);
  equal(batch.pending, 0);
  equal(p.socket.writableCorked, 0);
  while (p.received().length < 7) await new Promise((ok) => setTimeout(ok, 5));
  deepEqual([...p.received()], [1, 2, 3, 4, 5, 6, 7]);
  await p.close();
});

Deno.test("a socket destroyed before the turn ends is skipped", async () => {
  const p = await pair();
  const other = await pair();
  const batch = new WriteBatch();
  batch.write(p.socket, new Uint8Array([1]), () => {});
  const { promise: written, resolve } = Promise.withResolvers<void>();
  batch.write(other.socket, new Uint8Array([9]), () => resolve());
  p.socket.destroy();
  await written;
  equal(batch.pending, 0);
  while (other.received().length < 1) await new Promise((ok) => setTimeout(ok, 5));
  deepEqual([...other.received()], [9]);
  await p.close();
  await other.close();
});
