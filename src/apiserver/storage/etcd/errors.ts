// Maps errors of the etcd client (kv-client.ts, watch-stream.ts: gRPC and etcd server errors) to StorageError.
import { StorageError } from "../interface.ts";
import { EtcdCallError, GrpcCode } from "./grpc.ts";

const connectionCodes: ReadonlySet<number> = new Set([
  GrpcCode.Cancelled,
  GrpcCode.Unknown,
  GrpcCode.DeadlineExceeded,
  GrpcCode.Internal,
  GrpcCode.Unavailable,
]);

export function toStorageError(err: unknown, what: string): unknown {
  if (err instanceof StorageError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes("required revision has been compacted")) {
    return new StorageError("Compacted", `${what}: the requested revision has been compacted`, {}, { cause: err });
  }
  if (message.includes("required revision is a future revision")) {
    return new StorageError("FutureRevision", `${what}: the requested revision is newer than the current one`, {}, {
      cause: err,
    });
  }
  if (isConnectionError(err)) {
    return new StorageError("Unavailable", `${what}: etcd is unavailable: ${message}`, {}, { cause: err });
  }
  return err;
}

function isConnectionError(err: unknown): boolean {
  return err instanceof EtcdCallError && connectionCodes.has(err.code);
}
