import { equal } from "node:assert/strict";
import { memoryLogHub } from "../util/log.ts";
import { fileServiceApp } from "./file_service.ts";
import { defaultCompanionsConfig, servedFilePath } from "./config.ts";

Deno.test("file service answers only its one file, whatever the request names", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-file-" });
  try {
    const path = `${dir}/user_info.json`;
    await Deno.writeTextFile(path, '{\n  "100": "Alice"\n}\n');
    await Deno.writeTextFile(`${dir}/secret.txt`, "secret");
    const app = fileServiceApp(path, 1024, memoryLogHub().logger());
    await t.step("GET /api is the file as text", async () => {
      const res = await app.request("/api");
      equal(res.status, 200);
      equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
      equal(await res.text(), '{\n  "100": "Alice"\n}\n');
    });
    await t.step("paths and queries choose nothing", async () => {
      for (
        const p of [
          "/api?file=secret.txt",
          "/api?path=/etc/passwd",
          "/api/../secret.txt",
          "/api/secret.txt",
          "/secret.txt",
          "/api%2F..%2Fsecret.txt",
        ]
      ) {
        const res = await app.request(p, { headers: { "x-file-path": `${dir}/secret.txt` } });
        const body = await res.text();
        equal(body.includes("secret"), false, p);
        equal(res.status === 200 ? body : "", res.status === 200 ? '{\n  "100": "Alice"\n}\n' : "", p);
      }
      equal((await app.request("/api", { method: "POST" })).status, 404);
    });
    await t.step("missing and oversized files; the path is never shown", async () => {
      const missing = await fileServiceApp(`${dir}/nope.json`, 1024, memoryLogHub().logger()).request("/api");
      equal(missing.status, 404);
      equal(await missing.text(), "File not found");
      const big = await fileServiceApp(path, 4, memoryLogHub().logger()).request("/api");
      equal(big.status, 500);
      equal((await big.text()).includes(dir), false);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the served file: FILE_PATH wins, then file.path, then the room service's user_info.json", () => {
  const c = defaultCompanionsConfig();
  equal(servedFilePath(c, () => undefined), "data/companions/user_info.json");
  equal(servedFilePath({ ...c, file: { ...c.file, path: "/srv/x.json" } }, () => undefined), "/srv/x.json");
  equal(servedFilePath(c, (k) => k === "FILE_PATH" ? "/root/user_info.json" : undefined), "/root/user_info.json");
});
