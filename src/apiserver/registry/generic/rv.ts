// resourceVersion parsing and the errors of docs/kubernetes-api.md#resourceversion: RVs are decimal strings of the storage revision.
import { newBadRequest, newInternalError, newResourceExpired, newServiceUnavailable, StatusError } from "../../../apimachinery/errors.ts";
import { StorageError } from "../../storage/interface.ts";

/** undefined for "" / unset; 0 for "0"; else the revision. Garbage -> 400. */
export function parseResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === "") return undefined;
  if (!/^(0|[1-9][0-9]*)$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    throw newBadRequest(`invalid resource version: ${JSON.stringify(rv)}`);
  }
  return Number(rv);
}

export function tooOldResourceVersion(rv: number, oldest: number): StatusError {
  return newResourceExpired(`too old resource version: ${rv} (${oldest})`);
}

/** 504 with the ResourceVersionTooLarge cause client-go looks for (it relists). */
export function tooLargeResourceVersion(rv: number, current: number): StatusError {
  return new StatusError(504, "Timeout", `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds: 1,
  });
}

/** Storage failures as API errors (Compacted -> 410, Unavailable -> 503, the rest -> 500). */
export function storageToStatus(err: unknown, rv?: number): StatusError {
  if (err instanceof StatusError) return err;
  if (err instanceof StorageError) {
    if (err.code === "Compacted") return tooOldResourceVersion(rv ?? 0, err.extra.compactedRevision ?? 0);
    if (err.code === "FutureRevision") return tooLargeResourceVersion(rv ?? 0, err.extra.currentRevision ?? 0);
    if (err.code === "Unavailable") return newServiceUnavailable(`storage is unavailable: ${err.message}`);
  }
  return newInternalError(err);
}
