import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ProtocolError,
  ResizeDecoder,
  V4_PROTOCOL,
  V5_PROTOCOL,
  decodeClose,
  decodeFrame,
  decodeStatus,
  encodeClose,
  encodeFrame,
  encodeResize,
  encodeStatus,
  exitStatus,
  failureStatus,
  negotiateProtocol,
  offeredProtocols,
  supportsClose,
} from "./protocol.ts";

describe("remotecommand channel protocol", () => {
  test("negotiation prefers v5, then v4, whatever the client's order; nothing else is accepted", () => {
    assert.equal(negotiateProtocol([V4_PROTOCOL, V5_PROTOCOL]), V5_PROTOCOL);
    assert.equal(negotiateProtocol(["channel.k8s.io", V4_PROTOCOL, "base64.channel.k8s.io"]), V4_PROTOCOL);
    assert.equal(negotiateProtocol(["v4.base64.channel.k8s.io", "channel.k8s.io", "SPDY/3.1"]), undefined);
    assert.equal(negotiateProtocol([]), undefined);
    assert.deepEqual(offeredProtocols(["v5.channel.k8s.io, v4.channel.k8s.io", " channel.k8s.io"]), [V5_PROTOCOL, V4_PROTOCOL, "channel.k8s.io"]);
    assert.deepEqual(offeredProtocols(undefined), []);
    assert.equal(supportsClose(V5_PROTOCOL), true);
    assert.equal(supportsClose(V4_PROTOCOL), false);
  });

  test("a frame is the channel byte and the payload; an empty message is a protocol error", () => {
    const f = encodeFrame(1, "hi");
    assert.deepEqual([...f], [1, 0x68, 0x69]);
    assert.deepEqual(decodeFrame(f), { channel: 1, payload: Buffer.from("hi") });
    assert.deepEqual([...encodeFrame(1)], [1], "the readiness frame is the channel byte alone");
    assert.throws(() => decodeFrame(Buffer.alloc(0)), ProtocolError);
    assert.throws(() => encodeFrame(256, ""), RangeError);
  });

  test("CLOSE is exactly [255, channel]", () => {
    assert.deepEqual([...encodeClose(0)], [255, 0]);
    const { channel, payload } = decodeFrame(encodeClose(0));
    assert.equal(channel, 255);
    assert.equal(decodeClose(payload), 0);
    assert.throws(() => decodeClose(Buffer.alloc(0)), /exactly 2/);
    assert.throws(() => decodeClose(Buffer.from([0, 1])), /3 bytes/);
  });

  test("resize messages: one per message, several in one, one split across two; bad values are refused", () => {
    const d = new ResizeDecoder();
    assert.deepEqual(d.push(decodeFrame(encodeResize({ width: 80, height: 24 })).payload), [{ width: 80, height: 24 }]);
    assert.deepEqual(d.push(Buffer.from('{"Width":100,"Height":40}\n{"Width":120,"Height":33}')), [
      { width: 100, height: 40 },
      { width: 120, height: 33 },
    ]);
    assert.deepEqual(d.push(Buffer.from('{"Width":1')), []);
    assert.deepEqual(d.push(Buffer.from('0,"Height":2}')), [{ width: 10, height: 2 }]);
    assert.throws(() => new ResizeDecoder().push(Buffer.from('{"Width":70000,"Height":2}')), /Width/);
    assert.throws(() => new ResizeDecoder().push(Buffer.from('{"Width":-1,"Height":2}')), /Width/);
    assert.throws(() => new ResizeDecoder().push(Buffer.from('{"Width":"80","Height":2}')), /Width/);
    assert.throws(() => new ResizeDecoder().push(Buffer.from("[1,2]")), /JSON object/);
    assert.throws(() => new ResizeDecoder().push(Buffer.from("{not json}")), /not JSON/);
    assert.throws(() => new ResizeDecoder().push(Buffer.from(`{"Width":${" ".repeat(5000)}`)), /too long/);
  });

  test("exit status: Success for 0, NonZeroExitCode with the ExitCode cause otherwise, read back as the client does", () => {
    assert.equal(encodeStatus(exitStatus(0)).subarray(1).toString(), '{"metadata":{},"status":"Success"}');
    const s = exitStatus(3, ["sh", "-c", "exit 3"]);
    assert.deepEqual(s, {
      metadata: {},
      status: "Failure",
      message: "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "3" }] },
    });
    const frame = decodeFrame(encodeStatus(s));
    assert.equal(frame.channel, 3);
    assert.equal(decodeStatus(frame.payload), 3);
    assert.equal(decodeStatus(encodeStatus(exitStatus(0)).subarray(1)), 0);
    const err = decodeStatus(encodeStatus(failureStatus("container went away")).subarray(1));
    assert.ok(err instanceof Error && err.message === "container went away");
    assert.ok(decodeStatus(Buffer.from("not json")) instanceof Error);
    const noCause = { metadata: {}, status: "Failure", reason: "NonZeroExitCode", message: "m" };
    assert.ok(decodeStatus(Buffer.from(JSON.stringify(noCause))) instanceof Error, "NonZeroExitCode without its cause is a generic error");
  });
});
