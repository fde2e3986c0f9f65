// What the etcd client's unary calls (kv-client.ts) and watch streams (watch-stream.ts) share:
// the etcdserverpb message types, loaded by protobufjs from the etcd3 package's own .proto files,
// gRPC's length-prefixed framing, its status headers and its error codes.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import protobuf from "protobufjs";

const protoDir = join(dirname(createRequire(import.meta.url).resolve("etcd3/package.json")), "proto");
const root = new protobuf.Root().loadSync(join(protoDir, "rpc.proto"), { keepCase: true });
export const types = {
  RangeRequest: root.lookupType("etcdserverpb.RangeRequest"),
  RangeResponse: root.lookupType("etcdserverpb.RangeResponse"),
  TxnRequest: root.lookupType("etcdserverpb.TxnRequest"),
  TxnResponse: root.lookupType("etcdserverpb.TxnResponse"),
  CompactionRequest: root.lookupType("etcdserverpb.CompactionRequest"),
  CompactionResponse: root.lookupType("etcdserverpb.CompactionResponse"),
  WatchRequest: root.lookupType("etcdserverpb.WatchRequest"),
  WatchResponse: root.lookupType("etcdserverpb.WatchResponse"),
};

/** int64 fields decode to Long (or number when small); int64() turns either into a number. */
export type Int64 = number | { toString(): string; toNumber?(): number };

/** An int64 field as a number (revisions stay far below 2^53). Long's own conversion, not Number(), which formats it in base 10 first. */
export function int64(x: Int64): number {
  return typeof x === "number" ? x : typeof x.toNumber === "function" ? x.toNumber() : Number(x.toString());
}

export interface KvMessage {
  key: Buffer;
  value: Buffer;
  create_revision: Int64;
  mod_revision: Int64;
}

/** A failed call: `code` is the gRPC status (14 UNAVAILABLE, 4 DEADLINE_EXCEEDED, ...). */
export class EtcdCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "EtcdCallError";
  }
}

export const GrpcCode = { Cancelled: 1, Unknown: 2, DeadlineExceeded: 4, Internal: 13, Unavailable: 14 } as const;

/** The largest response (unary) or message (watch) the client accepts. */
export const maxResponseBytes = 256 * 1024 * 1024;

/** A stream's gRPC status, from whichever of its response headers or trailers carries it. */
export class GrpcStatus {
  code: number | undefined;
  message = "";
  read(h: Record<string, unknown>): void {
    if (h["grpc-status"] === undefined) return;
    this.code = Number(h["grpc-status"]);
    this.message = decodeURIComponent(String(h["grpc-message"] ?? ""));
  }
}

/** gRPC's length-prefixed message: one flag byte (0, uncompressed) and a big-endian length. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}
