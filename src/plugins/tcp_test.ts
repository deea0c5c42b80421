import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { Buffer } from "node:buffer";
import { AddressPolicy } from "./address_policy.ts";
import { PluginTcp } from "./tcp.ts";

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
}

Deno.test("plugin TCP: listen, connect, send, receive through recv and notifications, close", async () => {
  const notes: { method: string; take: () => unknown[] | null }[] = [];
  const tcp = new PluginTcp(new AddressPolicy(true), (method, take) => notes.push({ method, take }));
  const listener = tcp.listen("127.0.0.1:0");
  const port = Number(tcp.localAddr(listener).split(":")[1]);
  const client = await tcp.connect(`127.0.0.1:${port}`);
  await until(() => notes.some((n) => n.method === "tcp:accept"));
  const accepted = notes.find((n) => n.method === "tcp:accept")!.take()!;
  equal(accepted[0], listener.toString());
  const server = BigInt(accepted[1] as string);
  equal(tcp.accept(listener), null, "taken by the notification");
  tcp.send(client, new TextEncoder().encode("hello"));
  await until(() => notes.some((n) => n.method === "tcp:data"));
  equal(tcp.recv(server, 2)?.length, 2, "recv takes first");
  const data = notes.find((n) => n.method === "tcp:data")!.take()!;
  deepEqual(data, [server.toString(), Buffer.from("llo").toString("base64")]);
  equal(tcp.recv(server, 10), null);
  equal(tcp.peerAddr(client), `127.0.0.1:${port}`);
  tcp.close(client);
  await until(() => notes.some((n) => n.method === "tcp:closed"));
  throws(() => tcp.recv(server, 1), /closed/);
  throws(() => tcp.send(99n, new Uint8Array(1)), /unknown handle/);
  tcp.closeAll();
  equal(tcp.size, 0);
});

Deno.test("plugin TCP follows the address policy", async () => {
  const tcp = new PluginTcp(
    new AddressPolicy(false),
    () => {},
    (host) => Promise.resolve(host === "in.example" ? ["10.0.0.5"] : []),
  );
  await rejects(tcp.connect("127.0.0.1:80"), /127\.0\.0\.1 is an internal address/);
  await rejects(tcp.connect("in.example:80"), /10\.0\.0\.5 is an internal address/);
  await rejects(tcp.connect("localhost:80"), /local machine/);
  await rejects(tcp.connect("no-port"), /invalid address/);
});
