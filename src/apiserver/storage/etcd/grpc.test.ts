import assert from "node:assert/strict";
import { it } from "node:test";
import { int64, types } from "./grpc.ts";

void it("int64 reads revisions as numbers, from a Long as decoded from the wire, a number, or a string", () => {
  const big = 2 ** 40 + 7;
  const wire = types.TxnResponse.encode(types.TxnResponse.fromObject({ header: { revision: big }, succeeded: true })).finish();
  const decoded = types.TxnResponse.decode(wire) as unknown as { header: { revision: Parameters<typeof int64>[0] } };
  assert.equal(typeof decoded.header.revision, "object", "protobufjs decodes int64 to Long");
  assert.equal(int64(decoded.header.revision), big);
  assert.equal(int64(12), 12);
  assert.equal(int64({ toString: () => "99" }), 99);
});
