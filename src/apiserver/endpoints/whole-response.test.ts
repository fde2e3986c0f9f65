import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { connect, createServer, sensitiveHeaders } from "node:http2";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { http2Headers, sendWhole } from "./whole-response.ts";

void describe("sendWhole over HTTP/2", () => {
  it("sends status, headers and the whole body, then ends the stream; without a body, ends it with the headers", async (t) => {
    const large = "x".repeat(1 << 20); // more than the peer's flow-control window: several writes' worth
    const finished: string[] = [];
    const server = createServer((req, res) => {
      const body = req.url === "/large" ? large : req.url === "/small" ? '{"kind":"ConfigMap"}' : undefined;
      res.once("finish", () => finished.push(req.url!));
      sendWhole(res as unknown as ServerResponse, body === undefined ? 204 : 201, { "Content-Type": "application/json" }, body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const session = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    t.after(() => {
      session.close();
      server.close();
    });
    const get = (path: string) =>
      new Promise<{ status: number; type: unknown; body: string }>((resolve, reject) => {
        const stream = session.request({ ":path": path });
        let head: { status: number; type: unknown } | undefined;
        const chunks: Buffer[] = [];
        stream.on("response", (h) => (head = { status: Number(h[":status"]), type: h["content-type"] }));
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => resolve({ ...head!, body: Buffer.concat(chunks).toString() }));
        stream.on("error", reject);
      });
    assert.deepEqual(await get("/small"), { status: 201, type: "application/json", body: '{"kind":"ConfigMap"}' });
    const big = await get("/large");
    assert.equal(big.status, 201);
    assert.equal(big.body.length, large.length);
    assert.deepEqual(await get("/none"), { status: 204, type: "application/json", body: "" });
    assert.deepEqual(finished.sort(), ["/large", "/none", "/small"], "each response finished");
  });
});

void describe("http2Headers", () => {
  it("merges the headers set before with the answer's own, lowercased, the answer's winning, with :status", () => {
    const out = http2Headers(201, { "audit-id": "a1", "x-multi": ["a", "b"], "content-type": "text/plain" }, { "Content-Type": "application/json", "Content-Length": 12 });
    assert.deepEqual(Object.fromEntries(Object.entries(out)), { ":status": 201, "audit-id": "a1", "x-multi": ["a", "b"], "content-type": "application/json", "content-length": 12 });
  });

  it("leaves out the connection-specific headers HTTP/2 forbids, and TE unless it is trailers", () => {
    const out = http2Headers(200, { connection: "close", "Keep-Alive": "timeout=5" }, { "Transfer-Encoding": "chunked", Upgrade: "websocket", "Proxy-Connection": "x", "HTTP2-Settings": "y", te: "gzip" });
    assert.deepEqual(Object.keys(out), [":status"]);
    assert.equal(http2Headers(200, {}, { te: "trailers" }).te, "trailers");
  });

  it("refuses a name or value that could not be sent, as writeHead does", () => {
    assert.throws(() => http2Headers(301, {}, { Location: "/a\r\nSet-Cookie: x=1" }), { code: "ERR_INVALID_CHAR" });
    assert.throws(() => http2Headers(200, {}, { "bad name": "x" }), { code: "ERR_INVALID_HTTP_TOKEN" });
  });

  it("marks the Audit-Id as never indexed, and nothing else", () => {
    assert.deepEqual(http2Headers(200, { "audit-id": "a1" }, {})[sensitiveHeaders], ["audit-id"]);
  });
});
