// A lean etcd client for what the storage needs (Range, Txn, Compact, Watch): gRPC framing over
// one node:http2 session per endpoint, messages encoded and decoded by protobufjs from the etcd3
// package's own .proto files. Each unary call is one HTTP/2 stream; no interceptor chain, resolver,
// load-balancer or retry policy objects per call, which is where the etcd3/grpc-js path spent a
// third of the etcd-backed API server's CPU (docs/high-availability.md).
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from "node:http2";
import { Deadlines } from "./deadlines.ts";
import { requestStream } from "./http2-request.ts";
import { EtcdCallError, frame, GrpcCode, GrpcStatus, maxResponseBytes, types, type Int64, type KvMessage } from "./grpc.ts";
import { openWatchStream, type WatchCreate, type WatchResponse, type WatchStream } from "./watch-stream.ts";

/** Compare.CompareTarget and Compare.CompareResult as numbers, as they go on the wire. */
export const Target = { Create: 1, Mod: 2 } as const;
export const Result = { Equal: 0, Greater: 1 } as const;

export interface RangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: number;
  revision?: number;
  count_only?: boolean;
  keys_only?: boolean;
  min_mod_revision?: number;
}
export interface RangeResponse {
  header: { revision: Int64 };
  kvs: KvMessage[];
  more: boolean;
  count: Int64;
}
export interface Compare {
  result: number;
  target: number;
  key: Buffer;
  create_revision?: number;
  mod_revision?: number;
}
export interface RequestOp {
  request_range?: RangeRequest;
  request_put?: { key: Buffer; value: Buffer; prev_kv?: boolean };
  request_delete_range?: { key: Buffer; prev_kv?: boolean };
}
export interface TxnResponse {
  header: { revision: Int64 };
  succeeded: boolean;
  responses: {
    response_range?: RangeResponse;
    response_put?: { prev_kv?: KvMessage };
    response_delete_range?: { prev_kvs: KvMessage[] };
  }[];
}

/**
 * Receive windows of the sessions to etcd (node's default is 64 KiB for both). With 64 KiB a 1 MB
 * watch event or Txn answer takes some 16 window updates, each waiting for a turn of our busy event
 * loop: measured, a consistent read during 1 MB writes waited up to 300 ms for the watch.
 */
const STREAM_WINDOW_BYTES = 4 * 1024 * 1024;
const SESSION_WINDOW_BYTES = 16 * 1024 * 1024;

/** Codes after which the call may be sent to the next endpoint (the connection, not etcd, failed). */
const connectionCodes: ReadonlySet<number> = new Set([GrpcCode.Unavailable]);

export class EtcdKvClient {
  private readonly sessions = new Map<string, ClientHttp2Session>();
  private next = 0;
  /** Streams open per session: a session keeps the process alive only while it has some. */
  private readonly inFlight = new Map<ClientHttp2Session, number>();
  private closed = false;
  private readonly deadlines: Deadlines<ClientHttp2Stream>;

  constructor(
    private readonly endpoints: string[],
    private readonly timeoutMs: number,
  ) {
    if (endpoints.length === 0) throw new Error("etcd: no endpoints");
    this.deadlines = new Deadlines(timeoutMs);
  }

  range(req: RangeRequest): Promise<RangeResponse> {
    return this.call("Range", types.RangeRequest, types.RangeResponse, req) as Promise<RangeResponse>;
  }

  txn(req: { compare: Compare[]; success: RequestOp[]; failure?: RequestOp[] }): Promise<TxnResponse> {
    return this.call("Txn", types.TxnRequest, types.TxnResponse, req) as Promise<TxnResponse>;
  }

  compact(req: { revision: number; physical: boolean }): Promise<unknown> {
    return this.call("Compact", types.CompactionRequest, types.CompactionResponse, req);
  }

  /**
   * One watch as one bidirectional Watch stream on the current endpoint (watch-stream.ts). `onEnd`
   * gets why the stream ended (after it, the caller opens a new one, and the endpoint rotates).
   */
  watch(create: WatchCreate, onResponse: (res: WatchResponse) => void, onEnd: (err: EtcdCallError) => void): WatchStream {
    const endpoint = this.endpoints[this.next % this.endpoints.length]!;
    return openWatchStream(() => this.session(endpoint), endpoint, create, onResponse, (err) => {
      this.next++;
      onEnd(err);
    });
  }

  close(): void {
    this.closed = true;
    this.deadlines.clear();
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
  }

  /** One attempt per endpoint at most, starting with the one that answered last. */
  private async call(method: string, reqType: protobuf.Type, resType: protobuf.Type, req: object): Promise<unknown> {
    const body = frame(reqType.encode(req).finish());
    let lastError: unknown;
    // Each endpoint once, in order from this call's own start (other calls move `next` meanwhile).
    const start = this.next;
    for (let attempt = 0; attempt < this.endpoints.length; attempt++) {
      const endpoint = this.endpoints[(start + attempt) % this.endpoints.length]!;
      try {
        const payload = await this.unary(endpoint, `/etcdserverpb.KV/${method}`, body);
        return resType.decode(payload);
      } catch (err) {
        lastError = err;
        if (!(err instanceof EtcdCallError) || !connectionCodes.has(err.code)) throw err;
        this.next = start + attempt + 1;
      }
    }
    throw lastError;
  }

  private session(endpoint: string): ClientHttp2Session {
    if (this.closed) throw new EtcdCallError(GrpcCode.Cancelled, "etcd client closed");
    const existing = this.sessions.get(endpoint);
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const session = connect(endpoint, { settings: { initialWindowSize: STREAM_WINDOW_BYTES } });
    session.on("error", () => undefined); // every stream on it fails with its own error
    const widen = (): void => {
      if (!session.destroyed) session.setLocalWindowSize(SESSION_WINDOW_BYTES);
    };
    if (session.connecting) session.once("connect", widen);
    else widen();
    const forget = (): void => {
      if (this.sessions.get(endpoint) === session) this.sessions.delete(endpoint);
    };
    session.once("close", forget);
    session.once("goaway", forget);
    session.unref(); // idle sessions do not keep the process alive; calls in flight do (unary)
    this.sessions.set(endpoint, session);
    return session;
  }

  private unary(endpoint: string, path: string, body: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let stream: ClientHttp2Stream;
      let session: ClientHttp2Session;
      try {
        session = this.session(endpoint);
        stream = requestStream(session, {
          [constants.HTTP2_HEADER_METHOD]: "POST",
          [constants.HTTP2_HEADER_PATH]: path,
          [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
          te: "trailers",
          "grpc-timeout": `${this.timeoutMs}m`,
        });
      } catch (err) {
        reject(new EtcdCallError(GrpcCode.Unavailable, `${endpoint}: ${(err as Error).message}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let httpStatus = 0;
      const grpc = new GrpcStatus();
      this.deadlines.add(stream, () => {
        stream.close(constants.NGHTTP2_CANCEL);
        reject(new EtcdCallError(GrpcCode.DeadlineExceeded, `${endpoint}: deadline of ${this.timeoutMs} ms exceeded`));
      });
      stream.on("response", (h) => {
        httpStatus = Number(h[constants.HTTP2_HEADER_STATUS]);
        grpc.read(h);
      });
      stream.on("trailers", (h) => grpc.read(h));
      stream.on("data", (c: Buffer) => {
        size += c.length;
        if (size > maxResponseBytes) {
          stream.close(constants.NGHTTP2_CANCEL);
          reject(new EtcdCallError(GrpcCode.Internal, `${endpoint}: response larger than ${maxResponseBytes} bytes`));
          return;
        }
        chunks.push(c);
      });
      stream.on("error", (err) => reject(new EtcdCallError(GrpcCode.Unavailable, `${endpoint}: ${err.message}`)));
      const open = this.inFlight.get(session) ?? 0;
      this.inFlight.set(session, open + 1);
      if (open === 0) session.ref();
      stream.on("close", () => {
        this.deadlines.delete(stream);
        const left = (this.inFlight.get(session) ?? 1) - 1;
        if (left > 0) this.inFlight.set(session, left);
        else {
          this.inFlight.delete(session);
          session.unref();
        }
        if (grpc.code === undefined) {
          const why = httpStatus ? `HTTP ${httpStatus} without a gRPC status` : `stream closed (code ${stream.rstCode})`;
          reject(new EtcdCallError(GrpcCode.Unavailable, `${endpoint}: ${why}`));
        } else if (grpc.code !== 0) {
          reject(new EtcdCallError(grpc.code, grpc.message || `gRPC status ${grpc.code}`));
        } else {
          const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          if (all.length < 5 || all[0] !== 0 || all.readUInt32BE(1) !== all.length - 5) {
            reject(new EtcdCallError(GrpcCode.Internal, `${endpoint}: malformed gRPC response (${all.length} bytes)`));
          } else {
            resolve(all.subarray(5));
          }
        }
      });
      stream.end(body);
    });
  }
}
