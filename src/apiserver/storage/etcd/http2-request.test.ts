// requestStream opens the same HTTP/2 stream as session.request, in the same async context, and
// leaves AsyncResource#bind as it found it, also when request() throws.
import assert from "node:assert/strict";
import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
import { connect, createServer, type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders } from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { requestStream } from "./http2-request.ts";

void describe("requestStream", () => {
  const server = createServer((req, res) => res.end(`${req.method} ${req.url}`));
  let url: string;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** What a stream's callbacks see: the answer, and the async context its events ran in. */
  const exchange = (open: (s: ClientHttp2Session, h: OutgoingHttpHeaders) => ClientHttp2Stream) => {
    const als = new AsyncLocalStorage<string>();
    // A session still connecting: the stream starts in request()'s bound callback.
    const session = connect(url);
    return new Promise<{ body: string; contexts: (string | undefined)[] }>((resolve, reject) => {
      als.run("caller", () => {
        const stream = open(session, { ":method": "POST", ":path": "/etcd" });
        const contexts: (string | undefined)[] = [];
        let body = "";
        stream.on("ready", () => contexts.push(als.getStore()));
        stream.on("response", () => contexts.push(als.getStore()));
        stream.on("data", (c: Buffer) => (body += c.toString()));
        stream.on("end", () => {
          session.close();
          resolve({ body, contexts });
        });
        stream.on("error", reject);
        stream.end();
      });
    });
  };

  void it("answers as session.request does, in the same async contexts", async () => {
    const lean = await exchange(requestStream);
    const plain = await exchange((s, h) => s.request(h));
    assert.equal(lean.body, "POST /etcd");
    assert.deepEqual(lean, plain);
  });

  void it("restores AsyncResource#bind, also when request() throws", () => {
    const bind = AsyncResource.prototype.bind;
    const session = connect(url);
    session.destroy();
    assert.throws(() => requestStream(session, { ":path": "/" }), /destroyed/i);
    assert.equal(AsyncResource.prototype.bind, bind);
  });
});
