// List continue tokens (k8s.io/apiserver/pkg/storage/continue.go): the base64url encoding,
// without padding, of {"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<key suffix>"}.
// `start` is relative to the list's key prefix, so a token cannot reach outside the prefix it
// was issued for; it is usually the last returned key plus "\x00" (the next key to read).
import { newBadRequest } from "../errors.ts";

export const CONTINUE_TOKEN_VERSION = "meta.k8s.io/v1";

export interface ContinuePosition {
  /** The full storage key to continue from (keyPrefix + start). */
  startKey: string;
  /** The revision of the first page: every page is read at it. */
  resourceVersion: number;
}

/** The key to continue from after `lastKey`: the smallest key greater than it. */
export function keyAfter(lastKey: string): string {
  return `${lastKey}\x00`;
}

/** Encodes a token for continuing at `key` (which must lie under keyPrefix) at revision rv. */
export function encodeContinueToken(key: string, keyPrefix: string, resourceVersion: number): string {
  if (!key.startsWith(keyPrefix) || key === keyPrefix) {
    throw new Error("unable to encode next field: the key and key prefix do not match");
  }
  if (!Number.isSafeInteger(resourceVersion) || resourceVersion <= 0) {
    throw new Error(`unable to encode continue token: invalid resourceVersion ${resourceVersion}`);
  }
  const json = JSON.stringify({ v: CONTINUE_TOKEN_VERSION, rv: resourceVersion, start: key.slice(keyPrefix.length) });
  return Buffer.from(json, "utf8").toString("base64url");
}

const invalid = (detail: string): Error => newBadRequest(`continue key is not valid: ${detail}`);

/** Go's path.Clean for a path that starts with "/". */
function cleanPath(p: string): string {
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

/**
 * Decodes a token issued for keyPrefix. Anything malformed -> 400 BadRequest
 * (`continue key is not valid: ...`). Whether the revision is still available (else 410) is
 * for the caller to check.
 */
export function decodeContinueToken(token: string, keyPrefix: string): ContinuePosition {
  // Strict RawURLEncoding: URL alphabet, no padding, no stray characters.
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) {
    throw invalid("illegal base64 data");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch (err) {
    throw invalid(err instanceof Error ? err.message : String(err));
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid("not a JSON object");
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== CONTINUE_TOKEN_VERSION) throw invalid("server does not recognize this encoded version");
  if (typeof rv !== "number" || !Number.isSafeInteger(rv) || rv <= 0) {
    throw invalid(`incorrect encoded start resourceVersion (version ${CONTINUE_TOKEN_VERSION})`);
  }
  if (typeof start !== "string" || start.length === 0) throw invalid(`encoded start key empty (version ${CONTINUE_TOKEN_VERSION})`);
  // Reject anything path cleaning would change ("..", "//", "./"): the key cannot escape the prefix.
  const key = start.startsWith("/") ? start : `/${start}`;
  if (cleanPath(key) !== key) throw invalid(start);
  return { startKey: keyPrefix + key.slice(1), resourceVersion: rv };
}
