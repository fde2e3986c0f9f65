// Typed API errors: every failure the server answers with is a StatusError, rendered as a
// metav1 Status. Message formats follow k8s.io/apimachinery/pkg/api/errors.
import type { Status, StatusCause, StatusDetails, StatusReason } from "../apis/meta/v1/types.ts";
import { type FieldError, causesOf, formatFieldErrors } from "./field/errors.ts";

export interface GroupResource {
  group: string;
  resource: string;
}

function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export class StatusError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StatusError";
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): Status {
    const status: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

export function reasonOf(err: unknown): StatusReason | undefined {
  return err instanceof StatusError ? err.reason : undefined;
}

export const isNotFound = (err: unknown): boolean => reasonOf(err) === "NotFound";
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === "AlreadyExists";
export const isConflict = (err: unknown): boolean => reasonOf(err) === "Conflict";
export const isInvalid = (err: unknown): boolean => reasonOf(err) === "Invalid";
export const isForbidden = (err: unknown): boolean => reasonOf(err) === "Forbidden";
export const isExpired = (err: unknown): boolean => {
  const r = reasonOf(err);
  return r === "Expired" || r === "Gone";
};

/** The promise's value, or undefined when it failed with NotFound (other errors pass through). */
export async function unlessNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export function newNotFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, "NotFound", `${qualified(gr)} "${name}" not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function newPathNotFound(): StatusError {
  return new StatusError(404, "NotFound", "the server could not find the requested resource", {});
}

export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, "AlreadyExists", `${qualified(gr)} "${name}" already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function newGenerateNameConflict(gr: GroupResource, name: string, retryAfterSeconds: number): StatusError {
  return new StatusError(
    409,
    "AlreadyExists",
    `${qualified(gr)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    { name, group: gr.group, kind: gr.resource, retryAfterSeconds },
  );
}

export function newConflict(gr: GroupResource, name: string, detail: string): StatusError {
  return new StatusError(409, "Conflict", `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${detail}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export const OPTIMISTIC_LOCK_MESSAGE =
  "the object has been modified; please apply your changes to the latest version and try again";

export function newOptimisticLockConflict(gr: GroupResource, name: string): StatusError {
  return newConflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
}

/** 422 Invalid. `kind` is the Kind (not the resource), as kube-apiserver does. */
export function newInvalid(gk: { group: string; kind: string }, name: string, errs: FieldError[]): StatusError {
  const q = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  const message = errs.length ? `${q} "${name}" is invalid: ${formatFieldErrors(errs)}` : `${q} "${name}" is invalid`;
  return new StatusError(422, "Invalid", message, { name, group: gk.group, kind: gk.kind, causes: causesOf(errs) });
}

export function newBadRequest(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(400, "BadRequest", message, causes ? { causes } : undefined);
}

export function newUnauthorized(message = "Unauthorized"): StatusError {
  return new StatusError(401, "Unauthorized", message);
}

export function newForbidden(gr: GroupResource, name: string, reason: string): StatusError {
  const subject = name ? `${qualified(gr)} "${name}"` : qualified(gr);
  return new StatusError(403, "Forbidden", `${subject} is forbidden: ${reason}`, {
    name: name || undefined,
    group: gr.group,
    kind: gr.resource,
  });
}

export function newForbiddenMessage(message: string): StatusError {
  return new StatusError(403, "Forbidden", message);
}

export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(405, "MethodNotAllowed", `${action} is not supported on resources of kind "${qualified(gr)}"`, {
    group: gr.group,
    kind: gr.resource,
  });
}

export function newNotAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}

export function newUnsupportedMediaType(contentType: string, accepted: string[]): StatusError {
  return new StatusError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    { causes: [{ reason: "UnexpectedServerResponse", message: contentType }] },
  );
}

export function newRequestEntityTooLarge(message: string): StatusError {
  return new StatusError(413, "RequestEntityTooLarge", message);
}

export function newResourceExpired(message: string): StatusError {
  return new StatusError(410, "Expired", message);
}

export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, "TooManyRequests", message, { retryAfterSeconds });
}

export function newTimeout(message: string, retryAfterSeconds = 0): StatusError {
  return new StatusError(504, "Timeout", message, { retryAfterSeconds });
}

export function newServiceUnavailable(message: string): StatusError {
  return new StatusError(503, "ServiceUnavailable", message);
}

export function newInternalError(err: unknown): StatusError {
  const message = err instanceof Error ? err.message : String(err);
  return new StatusError(500, "InternalError", `Internal error occurred: ${message}`, {
    causes: [{ message }],
  }, { cause: err });
}

/** Wraps anything thrown into a StatusError; unknown errors become 500 InternalError. */
export function toStatusError(err: unknown): StatusError {
  return err instanceof StatusError ? err : newInternalError(err);
}
