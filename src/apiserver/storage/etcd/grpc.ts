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

/**
 * Splits a stream of chunks into gRPC messages. Chunks are kept as they come and joined once per
 * message, so a large message costs one copy however many chunks it arrives in (joining each
 * chunk onto the rest would copy a 1 MB message some 60 times).
 */
export class GrpcFrames {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Length of the message whose header has been read, or -1 before that. */
  private want = -1;

  /** Appends a chunk and returns the messages it completes (empty if none). Throws on a message over `max` bytes. */
  push(chunk: Buffer, max = maxResponseBytes): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: Buffer[] = [];
    for (;;) {
      if (this.want < 0) {
        if (this.buffered < 5) return out;
        const head = this.take(5);
        this.want = head.readUInt32BE(1);
        if (this.want > max) throw new Error(`message of ${this.want} bytes is larger than ${max} bytes`);
      }
      if (this.buffered < this.want) return out;
      out.push(this.take(this.want));
      this.want = -1;
    }
  }

  /** Removes the first n buffered bytes (n <= buffered) and returns them as one Buffer. */
  private take(n: number): Buffer {
    this.buffered -= n;
    const first = this.chunks[0];
    if (!first) return Buffer.alloc(0);
    if (first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    let used = 0;
    while (at < n) {
      const c = this.chunks[used]!;
      const k = Math.min(c.length, n - at);
      c.copy(out, at, 0, k);
      at += k;
      if (k === c.length) used++;
      else this.chunks[used] = c.subarray(k);
    }
    this.chunks.splice(0, used);
    return out;
  }
}
