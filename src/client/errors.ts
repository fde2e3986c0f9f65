// Turns failed API answers into StatusErrors, so callers match errors with isNotFound/isConflict
// whether the answer came through our transport or through client-node's generated API classes.
import type { Status, StatusDetails, StatusReason } from "../apis/meta/v1/types.ts";
import { StatusError } from "../apimachinery/errors.ts";

/** The reason client-go assumes for a code when the body carries none (apimachinery's reasonForError fallback). */
export function reasonForCode(code: number): StatusReason {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return code >= 500 ? "InternalError" : "";
  }
}

function isStatusObject(v: unknown): v is Status {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "Status";
}

/** Builds a StatusError from a metav1 Status (e.g. the object of a watch ERROR event). */
export function statusErrorFromStatus(status: Status, fallbackCode = 500): StatusError {
  const code = typeof status.code === "number" && status.code > 0 ? status.code : fallbackCode;
  const reason = status.reason || reasonForCode(code);
  const details: StatusDetails | undefined = status.details;
  return new StatusError(code, reason, status.message ?? `the server reported ${reason || code}`, details);
}

/**
 * Maps an HTTP error answer to a StatusError. The body is usually a Status JSON; anything else
 * (a proxy's HTML page, an empty body) still gets the reason that belongs to the code.
 */
export function statusErrorFromResponse(code: number, body: unknown, what = ""): StatusError {
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = body === "" ? undefined : JSON.parse(body);
    } catch {
      parsed = undefined;
    }
  }
  if (isStatusObject(parsed)) return statusErrorFromStatus(parsed, code);
  const text = typeof body === "string" ? body.trim().slice(0, 300) : "";
  const reason = reasonForCode(code);
  const message = text || `the server responded with HTTP ${code}${what ? ` to ${what}` : ""}`;
  return new StatusError(code, reason, message);
}

interface ApiExceptionLike {
  code: number;
  body: unknown;
}

function isApiExceptionLike(err: unknown): err is ApiExceptionLike {
  return err instanceof Error && typeof (err as Partial<ApiExceptionLike>).code === "number" && "body" in err;
}

/**
 * Converts client-node's ApiException (code + raw Status body) into a StatusError, keeping the
 * original as `cause`. Other errors pass through unchanged.
 */
export function fromApiException(err: unknown): unknown {
  if (err instanceof StatusError || !isApiExceptionLike(err)) return err;
  const mapped = statusErrorFromResponse(err.code, err.body);
  return new StatusError(mapped.code, mapped.reason, mapped.message, mapped.details, { cause: err });
}

/** Errors worth retrying after a pause: server overload, timeouts, internal errors. */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof StatusError)) return true;
  return err.code === 429 || err.code >= 500;
}
