import assert from "node:assert/strict";
import { it } from "node:test";
import { frame, GrpcFrames, int64, types } from "./grpc.ts";

void it("int64 reads revisions as numbers, from a Long as decoded from the wire, a number, or a string", () => {
  const big = 2 ** 40 + 7;
  const wire = types.TxnResponse.encode(types.TxnResponse.fromObject({ header: { revision: big }, succeeded: true })).finish();
  const decoded = types.TxnResponse.decode(wire) as unknown as { header: { revision: Parameters<typeof int64>[0] } };
  assert.equal(typeof decoded.header.revision, "object", "protobufjs decodes int64 to Long");
  assert.equal(int64(decoded.header.revision), big);
  assert.equal(int64(12), 12);
  assert.equal(int64({ toString: () => "99" }), 99);
});

void it("GrpcFrames yields each message whole, however the stream cuts it into chunks", () => {
  const messages = [Buffer.alloc(0), Buffer.from("a"), Buffer.alloc(70_000, 7), Buffer.from("last message")];
  messages[2]![69_999] = 9;
  const wire = Buffer.concat(messages.map((m) => frame(m)));
  let seed = 1;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  for (const cut of [1, 2, 4, 5, 6, 16_384, wire.length, 0]) {
    const frames = new GrpcFrames();
    const got: Buffer[] = [];
    for (let at = 0; at < wire.length; ) {
      const n = cut || 1 + Math.floor(random() * 9000);
      got.push(...frames.push(wire.subarray(at, at + n)));
      at += n;
    }
    assert.deepEqual(got, messages, `chunks of ${cut || "random size"}`);
  }
});

void it("GrpcFrames refuses a message over the bound from its header, before its body arrives", () => {
  const frames = new GrpcFrames();
  const head = frame(Buffer.alloc(0));
  head.writeUInt32BE(1025, 1);
  assert.throws(() => frames.push(head.subarray(0, 3), 1024) && frames.push(head.subarray(3), 1024), /1025 bytes is larger than 1024/);
});
