import assert from "node:assert/strict";
import { createServer, type Http2Server } from "node:http2";
import { after, before, describe, it } from "node:test";
import { freePort } from "../../../host/etcd.ts";
import { StorageError } from "../interface.ts";
import { toStorageError } from "./errors.ts";
import { EtcdCallError, GrpcCode } from "./grpc.ts";
import { EtcdKvClient } from "./kv-client.ts";

// Fake gRPC endpoints: what the client does when a server is gone, silent, not gRPC, or answers
// with a gRPC error or a malformed body. The calls against a real etcd are covered by etcd.test.ts.
describe("etcd kv client", () => {
  let server: Http2Server;
  let endpoint = "";
  let behaviour: "silent" | "not-grpc" | "grpc-error" | "short-body" = "silent";
  /** The receive windows the client had announced when its last call arrived. */
  let windows = { stream: 0, session: 0 };

  before(async () => {
    server = createServer();
    server.on("stream", (stream) => {
      windows = { stream: stream.session?.remoteSettings.initialWindowSize ?? 0, session: stream.session?.state.remoteWindowSize ?? 0 };
      stream.on("data", () => undefined);
      stream.on("error", () => undefined);
      if (behaviour === "silent") return;
      if (behaviour === "not-grpc") {
        stream.respond({ ":status": 404 });
        stream.end("no");
      } else if (behaviour === "grpc-error") {
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "11", "grpc-message": "etcdserver:%20mvcc:%20required%20revision%20is%20a%20future%20revision" }));
        stream.end();
      } else {
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end(Buffer.from([0, 0, 0, 0, 9, 1]));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const range = (client: EtcdKvClient) => client.range({ key: Buffer.from("/a") });

  async function failure(client: EtcdKvClient): Promise<EtcdCallError> {
    try {
      await range(client);
    } catch (err) {
      assert.ok(err instanceof EtcdCallError, `expected EtcdCallError, got ${String(err)}`);
      return err;
    } finally {
      client.close();
    }
    assert.fail("the call succeeded");
  }

  it("reports Unavailable when no endpoint accepts connections, after trying each", async () => {
    const dead = [`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`];
    const err = await failure(new EtcdKvClient(dead, 2000));
    assert.equal(err.code, GrpcCode.Unavailable);
    const mapped = toStorageError(err, "get /a");
    assert.ok(mapped instanceof StorageError && mapped.code === "Unavailable");
  });

  it("moves on to the next endpoint when one refuses connections", async () => {
    behaviour = "grpc-error"; // reaching the fake at all proves the failover
    const err = await failure(new EtcdKvClient([`http://127.0.0.1:${await freePort()}`, endpoint], 2000));
    assert.equal(err.code, 11);
  });

  it("tries every endpoint once per call, also when concurrent calls fail over at the same time", async () => {
    behaviour = "grpc-error";
    const client = new EtcdKvClient([`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`, endpoint], 2000);
    try {
      const codes = await Promise.all(Array.from({ length: 12 }, () => range(client).then(() => 0, (err: EtcdCallError) => err.code)));
      assert.deepEqual(codes, Array(12).fill(11));
    } finally {
      client.close();
    }
  });

  it("maps etcd's error messages (future revision) to their StorageError", async () => {
    behaviour = "grpc-error";
    const mapped = toStorageError(await failure(new EtcdKvClient([endpoint], 2000)), "list");
    assert.ok(mapped instanceof StorageError && mapped.code === "FutureRevision", String(mapped));
  });

  it("gives up on a silent server at the deadline", async () => {
    behaviour = "silent";
    const started = Date.now();
    const err = await failure(new EtcdKvClient([endpoint], 300));
    assert.equal(err.code, GrpcCode.DeadlineExceeded);
    assert.ok(Date.now() - started < 5000);
    assert.ok(toStorageError(err, "get") instanceof StorageError);
  });

  it("rejects an HTTP answer without a gRPC status and a malformed gRPC body", async () => {
    behaviour = "not-grpc";
    assert.equal((await failure(new EtcdKvClient([endpoint], 2000))).code, GrpcCode.Unavailable);
    behaviour = "short-body";
    assert.equal((await failure(new EtcdKvClient([endpoint], 2000))).code, GrpcCode.Internal);
  });

  it("announces receive windows that take a 1 MB watch event or answer without waiting for window updates", async () => {
    behaviour = "short-body";
    await failure(new EtcdKvClient([endpoint], 2000));
    assert.ok(windows.stream >= 4 * 1024 * 1024, `stream window ${windows.stream}`);
    assert.ok(windows.session >= 16 * 1024 * 1024, `session window ${windows.session}`);
  });
});
