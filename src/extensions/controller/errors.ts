// Errors an extension's actuator (or validator) returns to the generic reconciler: errors carrying
// Gardener error codes (e.g. ERR_CONFIGURATION_PROBLEM), which end up in `lastError.codes`, and
// "requeue after" errors, whose cause is recorded but which retry after a fixed delay instead of
// backing off.

/** An error with Gardener error codes; the codes are collected from the whole cause chain. */
export class ErrorWithCodes extends Error {
  readonly codes: readonly string[];
  constructor(message: string, codes: string[], options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ErrorWithCodes";
    this.codes = [...codes];
  }
}

/** Wraps err with codes, keeping its message. */
export function withCodes(err: unknown, ...codes: string[]): ErrorWithCodes {
  return new ErrorWithCodes(messageOf(err), codes, { cause: err });
}

/** "Not done yet, look again after delayMs": recorded as an error, retried without backoff. */
export class RequeueAfterError extends Error {
  readonly delayMs: number;
  constructor(message: string, delayMs: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RequeueAfterError";
    this.delayMs = delayMs;
  }
}

export function isRequeueAfter(err: unknown): err is RequeueAfterError {
  return err instanceof RequeueAfterError;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Every code found along err's cause chain, de-duplicated, in order of appearance. */
export function extractErrorCodes(err: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 32; depth++) {
    const codes = (e as { codes?: unknown }).codes;
    if (Array.isArray(codes)) for (const c of codes) if (typeof c === "string" && !out.includes(c)) out.push(c);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
}
