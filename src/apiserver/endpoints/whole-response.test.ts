import assert from "node:assert/strict";
import { sensitiveHeaders } from "node:http2";
import { describe, it } from "node:test";
import { http2Headers } from "./whole-response.ts";

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
