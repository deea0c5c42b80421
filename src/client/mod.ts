/**
 * Phira multiplayer protocol client for tests, the load generator, the
 * monitor proxy and scripts: typed request methods with reply matching like
 * the official client, the official client's room model with a record of
 * every point where it would have crashed, and a bounded event stream.
 *
 * @example Usage
 * ```ts ignore
 * import { connect } from "./mod.ts";
 * const client = await connect({ host: "127.0.0.1", port: 12346 });
 * await client.authenticate("0123456789abcdef0123456789abcdef");
 * await client.createRoom("abc");
 * await client.close();
 * ```
 *
 * @module
 */

export * from "./assert.ts";
export * from "./client.ts";
export * from "./client_core.ts";
export * from "./connection.ts";
export * from "./errors.ts";
export * from "./ring_buffer.ts";
export * from "./room_model.ts";
export * from "./types.ts";
