// Impersonation headers ([as] release-1.32:pkg/endpoints/filters/impersonation.go):
// Impersonate-User, Impersonate-Group (repeatable; client-node's fetch joins them with ","),
// Impersonate-Uid and Impersonate-Extra-<key>. Each piece is authorized with verb `impersonate`
// for the *authenticated* user; any denial is a 403 with kube's message.
import { type StatusError, newBadRequest } from "../../apimachinery/errors.ts";
import { forbiddenError } from "../authorization/forbidden.ts";
import type { AuthorizationAttributes, Authorizer } from "../authorization/types.ts";
import { makeGroupNames, makeUsername, splitUsername } from "../serviceaccount/util.ts";
import { headerValues } from "./bearer.ts";
import { ANONYMOUS_USER, type AuthenticationRequest, GROUP_AUTHENTICATED, GROUP_UNAUTHENTICATED, type UserInfo } from "./types.ts";

type Headers = AuthenticationRequest["headers"];

export const IMPERSONATE_USER = "impersonate-user";
export const IMPERSONATE_GROUP = "impersonate-group";
export const IMPERSONATE_UID = "impersonate-uid";
export const IMPERSONATE_EXTRA_PREFIX = "impersonate-extra-";

type Piece =
  | { kind: "ServiceAccount"; namespace: string; name: string }
  | { kind: "User"; name: string }
  | { kind: "Group"; name: string }
  | { kind: "UserExtra"; key: string; value: string }
  | { kind: "UID"; name: string };

export function hasImpersonationHeaders(headers: Headers): boolean {
  return Object.keys(headers).some((k) => isImpersonationHeader(k));
}

/** Deletes the impersonation headers (the request then proceeds as the impersonated user). */
export function removeImpersonationHeaders(headers: Headers): void {
  for (const k of Object.keys(headers)) if (isImpersonationHeader(k)) delete headers[k];
}

function isImpersonationHeader(name: string): boolean {
  const k = name.toLowerCase();
  return k === IMPERSONATE_USER || k === IMPERSONATE_GROUP || k === IMPERSONATE_UID || k.startsWith(IMPERSONATE_EXTRA_PREFIX);
}

/**
 * The user the request acts as: `user` itself without impersonation headers, else the
 * impersonated user after checking every piece. Throws StatusError 403 when a piece is not
 * allowed, and (as kube-apiserver) 500 for groups/extra/uid without Impersonate-User.
 */
export async function impersonate(headers: Headers, user: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  const pieces = requestedPieces(headers);
  if (pieces.length === 0) return user;
  const groupsSpecified = pieces.some((p) => p.kind === "Group");

  let username = "";
  let uid: string | undefined;
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const p of pieces) {
    const attrs: AuthorizationAttributes = { user, verb: "impersonate", resourceRequest: true, apiGroup: "", apiVersion: "v1" };
    switch (p.kind) {
      case "ServiceAccount":
        Object.assign(attrs, { resource: "serviceaccounts", namespace: p.namespace, name: p.name });
        username = makeUsername(p.namespace, p.name);
        if (!groupsSpecified) groups.push(...makeGroupNames(p.namespace));
        break;
      case "User":
        Object.assign(attrs, { resource: "users", name: p.name });
        username = p.name;
        break;
      case "Group":
        Object.assign(attrs, { resource: "groups", name: p.name });
        groups.push(p.name);
        break;
      case "UserExtra":
        Object.assign(attrs, { apiGroup: "authentication.k8s.io", resource: "userextras", subresource: p.key, name: p.value });
        (extra[p.key] ??= []).push(p.value);
        break;
      case "UID":
        Object.assign(attrs, { apiGroup: "authentication.k8s.io", resource: "uids", name: p.name });
        uid = p.name;
        break;
    }
    const r = await authorizer.authorize(attrs);
    if (r.decision !== "allow") throw forbiddenError(attrs, r.reason);
  }

  if (username !== ANONYMOUS_USER) {
    if (!groups.includes(GROUP_AUTHENTICATED) && !groups.includes(GROUP_UNAUTHENTICATED)) groups.push(GROUP_AUTHENTICATED);
  } else if (!groups.includes(GROUP_UNAUTHENTICATED)) {
    groups.push(GROUP_UNAUTHENTICATED);
  }
  const out: UserInfo = { username, groups };
  if (uid !== undefined) out.uid = uid;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

function requestedPieces(headers: Headers): Piece[] {
  const pieces: Piece[] = [];
  const requestedUser = headerValues(headers, IMPERSONATE_USER)[0] ?? "";
  if (requestedUser) {
    const sa = splitUsername(requestedUser);
    pieces.push(sa ? { kind: "ServiceAccount", ...sa } : { kind: "User", name: requestedUser });
  }
  for (const g of splitValues(headerValues(headers, IMPERSONATE_GROUP))) pieces.push({ kind: "Group", name: g });
  for (const k of Object.keys(headers).sort()) {
    if (!k.toLowerCase().startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(k.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    for (const value of splitValues(headerValues(headers, k))) pieces.push({ kind: "UserExtra", key, value });
  }
  const requestedUid = headerValues(headers, IMPERSONATE_UID)[0] ?? "";
  if (requestedUid) pieces.push({ kind: "UID", name: requestedUid });
  if (!requestedUser && pieces.length > 0) throw withoutUser(pieces);
  return pieces;
}

/** Repeated headers arrive as an array, or joined with "," by Node or by client-node's fetch. */
function splitValues(values: string[]): string[] {
  return values.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
}

/** Extra keys are percent-encoded in header names (e.g. `Impersonate-Extra-example.com%2fscopes`). */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** kube-apiserver answers this client mistake with 500; we answer 400 (a client error is never a 5xx). */
function withoutUser(pieces: Piece[]): StatusError {
  const what = pieces.map((p) => `${p.kind}:${"name" in p ? p.name : `${p.key}=${p.value}`}`).join(" ");
  return newBadRequest(`requested [${what}] without impersonating a user`);
}
