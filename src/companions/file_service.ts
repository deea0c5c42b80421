/**
 * `file` (spec 2 §4.4; port 7880): `GET /api` answers the content of the
 * one configured file (`FILE_PATH` in the environment, as the original, or
 * `file.path`; by default the room service's `user_info.json`) as
 * `text/plain`. Nothing from the request chooses the file: no path, query
 * or header is read. Unlike the original, a missing file does not reveal
 * its path, and the size is capped.
 *
 * @module
 */

import { Hono } from "hono";
import type { Logger } from "../util/log.ts";
import type { CompanionEnv } from "./http_util.ts";

/** Builds the service for the file at `path`. */
export function fileServiceApp(path: string, maxBytes: number, log: Logger): Hono<CompanionEnv> {
  const app = new Hono<CompanionEnv>();
  const text = (body: string, status: number) =>
    new Response(body, {
      status,
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  app.get("/api", async () => {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return text("File not found", 404);
      log.error("file service cannot open its file", { path, error: String(error) });
      return text("Error reading file", 500);
    }
    try {
      const info = await file.stat();
      if (!info.isFile) return text("File not found", 404);
      if (info.size > maxBytes) {
        log.error("file service's file is over its size limit", { path, size: info.size, max_bytes: maxBytes });
        return text("Error reading file: too large", 500);
      }
      const bytes = new Uint8Array(info.size);
      let at = 0;
      while (at < bytes.length) {
        const n = await file.read(bytes.subarray(at));
        if (n === null) break;
        at += n;
      }
      return new Response(bytes.subarray(0, at), {
        headers: {
          "content-type": "text/plain; charset=utf-8",
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        },
      });
    } catch (error) {
      log.error("file service cannot read its file", { path, error: String(error) });
      return text("Error reading file", 500);
    } finally {
      file.close();
    }
  });
  app.notFound(() => text("Not found", 404));
  return app;
}
