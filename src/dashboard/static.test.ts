import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { serveStatic } from "./static.ts";

let dir: string;
let server: Server;
let port: number;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "dashboard-static-"));
  await mkdir(join(dir, "web", "assets"), { recursive: true });
  await writeFile(join(dir, "web", "index.html"), "<html>app</html>");
  await writeFile(join(dir, "web", "assets", "a.js"), "export {}");
  await writeFile(join(dir, "secret.txt"), "secret");
  server = createServer((req, res) => void serveStatic(join(dir, "web"), req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** A raw request path (not normalised by a URL parser). */
function get(path: string, method = "GET"): Promise<{ code: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ code: res.statusCode!, type: String(res.headers["content-type"]), body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("serves files and the app's index for routes; an unknown asset is a 404 Status", async () => {
  assert.deepEqual(await get("/"), { code: 200, type: "text/html; charset=utf-8", body: "<html>app</html>" });
  assert.equal((await get("/terminal/some-route")).body, "<html>app</html>");
  assert.deepEqual(await get("/assets/a.js"), { code: 200, type: "text/javascript; charset=utf-8", body: "export {}" });
  const missing = await get("/assets/b.js");
  assert.equal(missing.code, 404);
  assert.equal((JSON.parse(missing.body) as { reason: string }).reason, "NotFound");
  assert.equal((await get("/", "POST")).code, 405);
});

test("no path leaves the web root: dot segments, encoded ones, backslashes and NUL", async () => {
  for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/assets/%2e%2e%2f%2e%2e%2fsecret.txt", "/..%5csecret.txt", "/a%00.js", "/%E0%A4%A"]) {
    const r = await get(path);
    assert.notEqual(r.body, "secret", `${path} served the file outside the root`);
    assert.ok(r.code === 400 || r.code === 404 || (r.code === 200 && r.body === "<html>app</html>"), `${path}: ${r.code} ${r.body}`);
  }
});
