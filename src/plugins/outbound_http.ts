/**
 * `phira-host.http-request` (spec 3 §4.6, §8; capability `http`): an
 * outbound HTTP(S) request with the address policy applied to every
 * address the host name resolves to (custom DNS lookup) and again to the
 * address the socket actually connected to, so neither a DNS answer
 * pointing inside nor a rebinding between check and connect gets through.
 * Redirects are not followed (the plugin sees the 3xx and decides, and each
 * hop is checked again). The whole request is bounded by
 * `http_timeout_secs`, the response body by `max_http_response_bytes`.
 *
 * @module
 */

import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { Clock } from "../util/clock.ts";
import type { AddressPolicy } from "./address_policy.ts";

/** Limits of outbound requests. */
export interface OutboundLimits {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Largest request body (bytes). */
  readonly maxRequestBytes: number;
}

/** A response as the world's `http-response`. */
export interface OutboundResponse {
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: Uint8Array;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** Headers the host sets itself. */
const HOP_HEADERS = new Set(["connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "te"]);

type LookupCallback = (error: Error | null, addresses: { address: string; family: number }[]) => void;

/** Resolves a host name to its addresses. */
export type Resolver = (name: string) => Promise<{ address: string; family: number }[]>;

/** The system resolver (`getaddrinfo`, as connections use it). */
export function systemResolver(name: string): Promise<{ address: string; family: number }[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(name, { all: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses as { address: string; family: number }[]);
    });
  });
}

/** Makes outbound requests for plugins; every refusal and failure rejects with an Error whose message the plugin gets. */
export class OutboundHttp {
  readonly #policy: AddressPolicy;
  readonly #limits: OutboundLimits;
  readonly #clock: Clock;
  readonly #resolve: Resolver;

  /** `resolve` looks up a name's addresses (default: the system resolver). */
  constructor(policy: AddressPolicy, limits: OutboundLimits, clock: Clock, resolve: Resolver = systemResolver) {
    this.#policy = policy;
    this.#limits = limits;
    this.#clock = clock;
    this.#resolve = resolve;
  }

  /** Sends one request. */
  request(
    url: string,
    method: string,
    headers: readonly (readonly [string, string])[],
    body: Uint8Array,
  ): Promise<OutboundResponse> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.reject(new Error(`invalid URL "${url}"`));
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return Promise.reject(new Error(`only http and https URLs are allowed, not ${target.protocol}`));
    }
    const verb = method.toUpperCase();
    if (!METHODS.has(verb)) return Promise.reject(new Error(`unsupported method "${method}"`));
    if (body.length > this.#limits.maxRequestBytes) {
      return Promise.reject(new Error(`the request body is over ${this.#limits.maxRequestBytes} bytes`));
    }
    const host = target.hostname.replace(/^\[|\]$/g, "");
    const nameProblem = this.#policy.refusesName(host);
    if (nameProblem) return Promise.reject(new Error(`refused: ${nameProblem}`));
    const literalProblem = /^[\d.]+$|:/.test(host) ? this.#policy.refusesAddress(host) : null;
    if (literalProblem) return Promise.reject(new Error(`refused: ${literalProblem}`));
    return this.#send(target, verb, headers, body);
  }

  #send(
    target: URL,
    method: string,
    headers: readonly (readonly [string, string])[],
    body: Uint8Array,
  ): Promise<OutboundResponse> {
    const { promise, resolve, reject } = Promise.withResolvers<OutboundResponse>();
    const policy = this.#policy;
    const lookup = (name: string, _options: unknown, callback: LookupCallback) => {
      this.#resolve(name).then((list) => {
        const refused = list.map((a) => policy.refusesAddress(a.address)).find((p) => p !== null);
        // One internal answer refuses the name: picking the "good" ones would let a rebinding name through.
        if (refused) return callback(new Error(`refused: ${name} resolves to ${refused}`), []);
        if (!list.length) return callback(new Error(`${name} has no address`), []);
        callback(null, list);
      }, (error) => callback(error instanceof Error ? error : new Error(String(error)), []));
    };
    const outHeaders: Record<string, string> = {};
    for (const [k, v] of headers) if (!HOP_HEADERS.has(k.toLowerCase())) outHeaders[k] = v;
    if (body.length) outHeaders["content-length"] = String(body.length);
    const mod = target.protocol === "https:" ? https : http;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      this.#clock.clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const req = mod.request(target, { method, headers: outHeaders, lookup, agent: false }, (res) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      res.on("data", (chunk: Uint8Array) => {
        size += chunk.length;
        if (size > this.#limits.maxResponseBytes) {
          fail(new Error(`the response is larger than max_http_response_bytes (${this.#limits.maxResponseBytes})`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () => {
        if (settled) return;
        settled = true;
        this.#clock.clearTimeout(timer);
        const out = new Uint8Array(size);
        let at = 0;
        for (const c of chunks) {
          out.set(c, at);
          at += c.length;
        }
        const pairs: [string, string][] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode ?? 0, headers: pairs, body: out });
      });
      res.on("error", (error: Error) => fail(error));
    });
    req.on("socket", (socket) => {
      socket.on("connect", () => {
        const address = socket.remoteAddress ?? "";
        const problem = policy.refusesAddress(address);
        if (problem) fail(new Error(`refused: connected to ${problem}`));
      });
    });
    req.on("error", (error: Error) => fail(error));
    const timer = this.#clock.setTimeout(
      () => fail(new Error(`no complete answer within http_timeout_secs (${this.#limits.timeoutMs / 1000} s)`)),
      this.#limits.timeoutMs,
    );
    req.end(body.length ? body : undefined);
    return promise;
  }
}
