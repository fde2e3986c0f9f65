// Maps errors of the etcd clients (etcd3's for watches, kv-client.ts for unary calls: gRPC and
// etcd server errors) to StorageError.
import {
  ClientClosedError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCInternalError,
  GRPCUnavailableError,
  GRPCUnknownError,
} from "etcd3";
import { StorageError } from "../interface.ts";
import { EtcdCallError, GrpcCode } from "./kv-client.ts";

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
  return (
    (err instanceof EtcdCallError && connectionCodes.has(err.code)) ||
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    err instanceof GRPCCancelledError ||
    err instanceof GRPCInternalError ||
    err instanceof GRPCUnknownError ||
    err instanceof ClientClosedError ||
    // cockatiel's circuit breaker (etcd3's per-host fault handling) after repeated failures
    (typeof err === "object" && err !== null && (err as { isBrokenCircuitError?: unknown }).isBrokenCircuitError === true)
  );
}
