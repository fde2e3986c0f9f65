// One etcd watch as one bidirectional gRPC Watch stream (HTTP/2 stream) on a session of the
// client (kv-client.ts): the create request goes out once, WatchResponse messages come back
// framed until the stream ends. Reconnecting and de-duplicating is watch.ts's job.
import { constants, type ClientHttp2Session, type ClientHttp2Stream } from "node:http2";
import { requestStream } from "./http2-request.ts";
import { EtcdCallError, frame, GrpcCode, GrpcFrames, GrpcStatus, types, type Int64, type KvMessage } from "./grpc.ts";

export interface WatchCreate {
  key: Buffer;
  range_end: Buffer;
  start_revision: number;
  prev_kv: boolean;
}
export interface WatchResponse {
  header?: { revision: Int64 };
  created: boolean;
  canceled: boolean;
  compact_revision: Int64;
  cancel_reason: string;
  /** type: 0 put, 1 delete. */
  events: { type: number; kv: KvMessage; prev_kv?: KvMessage }[];
}
export interface WatchStream {
  /** Closes the stream (etcd drops its watch with it); onEnd is not called. */
  close(): void;
}

/**
 * Opens the stream on the session `session()` returns (it may throw: the client is closed or the
 * endpoint unusable). `onEnd` is called once, with why the stream ended, unless close() came first.
 */
export function openWatchStream(
  session: () => ClientHttp2Session,
  endpoint: string,
  create: WatchCreate,
  onResponse: (res: WatchResponse) => void,
  onEnd: (err: EtcdCallError) => void,
): WatchStream {
  let ended = false;
  const end = (err: EtcdCallError): void => {
    if (ended) return;
    ended = true;
    onEnd(err);
  };
  let stream: ClientHttp2Stream;
  try {
    stream = requestStream(session(), {
      [constants.HTTP2_HEADER_METHOD]: "POST",
      [constants.HTTP2_HEADER_PATH]: "/etcdserverpb.Watch/Watch",
      [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
      te: "trailers",
    });
  } catch (err) {
    queueMicrotask(() => end(new EtcdCallError(GrpcCode.Unavailable, `${endpoint}: ${(err as Error).message}`)));
    return { close: () => (ended = true) };
  }
  const frames = new GrpcFrames();
  const grpc = new GrpcStatus();
  stream.on("response", (h) => grpc.read(h));
  stream.on("trailers", (h) => grpc.read(h));
  stream.on("data", (c: Buffer) => {
    let messages: Buffer[];
    try {
      messages = frames.push(c);
    } catch (err) {
      stream.close(constants.NGHTTP2_CANCEL);
      return end(new EtcdCallError(GrpcCode.Internal, `${endpoint}: watch ${(err as Error).message}`));
    }
    for (const msg of messages) if (!ended) onResponse(types.WatchResponse.decode(msg) as unknown as WatchResponse);
  });
  stream.on("error", (err) => end(new EtcdCallError(GrpcCode.Unavailable, `${endpoint}: ${err.message}`)));
  stream.on("close", () =>
    end(new EtcdCallError(grpc.code && grpc.code !== 0 ? grpc.code : GrpcCode.Unavailable, `${endpoint}: watch stream ended${grpc.message ? `: ${grpc.message}` : ""}`)),
  );
  stream.write(frame(types.WatchRequest.encode({ create_request: create }).finish()));
  return {
    close: () => {
      ended = true;
      stream.close(constants.NGHTTP2_CANCEL);
    },
  };
}
