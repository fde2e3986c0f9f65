// Bearer tokens from `Authorization: Bearer <t>` and, for WebSocket upgrades from browsers, from
// the `base64url.bearer.authorization.k8s.io.<t>` subprotocol ([as] pkg/authentication/request/
// bearertoken, request/websocket). A token that no token authenticator accepts is a 401: it
// never falls through to anonymous.
import { StatusError, newUnauthorized } from "../../apimachinery/errors.ts";
import type { AuthenticationRequest, RequestAuthenticator, TokenAuthenticator, UserInfo } from "./types.ts";

export const WEBSOCKET_BEARER_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";

export class BearerTokenAuthenticator implements RequestAuthenticator {
  constructor(private readonly tokens: TokenAuthenticator) {}

  async authenticate(req: AuthenticationRequest): Promise<UserInfo | undefined> {
    const token = bearerTokenOf(req.headers) ?? webSocketTokenOf(req.headers);
    if (token === undefined) return undefined;
    let result;
    try {
      result = await this.tokens.authenticateToken(token);
    } catch (err) {
      // Clients only ever see "Unauthorized"; the reason stays in the cause (for logs/audit).
      throw new StatusError(401, "Unauthorized", "Unauthorized", undefined, { cause: err });
    }
    if (!result) throw newUnauthorized();
    return result.user;
  }
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), undefined when absent or empty. */
export function bearerTokenOf(headers: AuthenticationRequest["headers"]): string | undefined {
  const auth = header(headers, "authorization");
  if (!auth) return undefined;
  const parts = auth.trim().split(" ");
  if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer") return undefined;
  return parts[1] ? parts[1] : undefined;
}

/**
 * The token of a WebSocket upgrade's `base64url.bearer.authorization.k8s.io.` subprotocol.
 * Throws 401 for several token protocols, no other protocol, or a bad encoding.
 */
export function webSocketTokenOf(headers: AuthenticationRequest["headers"]): string | undefined {
  if ((header(headers, "upgrade") ?? "").toLowerCase() !== "websocket") return undefined;
  const protocols = splitProtocols(header(headers, "sec-websocket-protocol"));
  const tokens = protocols.filter((p) => p.startsWith(WEBSOCKET_BEARER_PROTOCOL_PREFIX));
  if (tokens.length === 0) return undefined;
  if (tokens.length > 1) throw newUnauthorized("multiple base64.bearer.authorization tokens specified");
  if (protocols.length === 1) throw newUnauthorized("missing additional subprotocol");
  const encoded = tokens[0]!.slice(WEBSOCKET_BEARER_PROTOCOL_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) throw newUnauthorized("invalid base64.bearer.authorization token encoding");
  const token = Buffer.from(encoded, "base64url").toString("utf8");
  if (!token) throw newUnauthorized("invalid base64.bearer.authorization token");
  return token;
}

/** The Sec-WebSocket-Protocol value without the token entry (the server must never echo it). */
export function stripWebSocketTokenProtocol(value: string | undefined): string[] {
  return splitProtocols(value).filter((p) => !p.startsWith(WEBSOCKET_BEARER_PROTOCOL_PREFIX));
}

function splitProtocols(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** A header's first value, looked up case-insensitively (Node lower-cases names; tests may not). */
export function header(headers: AuthenticationRequest["headers"], name: string): string | undefined {
  const values = headerValues(headers, name);
  return values[0];
}

/** All values of a header (an array for repeated headers that Node did not join). */
export function headerValues(headers: AuthenticationRequest["headers"], name: string): string[] {
  const lower = name.toLowerCase();
  let v = headers[lower];
  if (v === undefined) {
    for (const k of Object.keys(headers)) if (k.toLowerCase() === lower) v = headers[k];
  }
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
