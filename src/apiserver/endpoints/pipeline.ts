// Authentication, impersonation and authorization steps of the request pipeline, and admit(),
// which runs them and resolves the resource for both plain and upgraded requests.
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { newForbidden, newForbiddenMessage, newPathNotFound, newUnauthorized, type StatusError } from "../../apimachinery/errors.ts";
import type { AuthenticationRequest, RequestAuthenticator, UserInfo } from "../authentication/types.ts";
import type { AuthorizationAttributes, Authorizer } from "../authorization/types.ts";
import type { ResourceRegistry } from "../registry/registry.ts";
import type { ResourceDefinition } from "../registry/types.ts";
import { connectionOf } from "./connection.ts";
import type { RequestInfo } from "./requestinfo.ts";

export interface AccessDeps {
  authenticator: RequestAuthenticator;
  authorizer: Authorizer;
  impersonate?(headers: IncomingMessage["headers"], user: UserInfo): Promise<UserInfo>;
  forbiddenMessage?(attrs: AuthorizationAttributes): string;
}

/** Per connection: the certificate is fixed by the handshake, and decoding it costs more than the rest of authentication. */
const peerSubjects = new WeakMap<object, AuthenticationRequest["peerCertificate"]>();

/** The verified client certificate's subject; only when the TLS layer verified it against the client CA. */
export function peerCertificateOf(req: IncomingMessage): AuthenticationRequest["peerCertificate"] {
  // Over HTTP/2 the session's socket: one per connection, as the cache wants.
  const sock = connectionOf(req) as Partial<TLSSocket>;
  if (!sock.encrypted || !sock.authorized || typeof sock.getPeerCertificate !== "function") return undefined;
  if (peerSubjects.has(sock)) return peerSubjects.get(sock);
  const cert = sock.getPeerCertificate();
  let peer: AuthenticationRequest["peerCertificate"];
  if (cert && cert.subject) {
    const subject = cert.subject as unknown as { CN?: string | string[]; O?: string | string[] };
    const cn = Array.isArray(subject.CN) ? subject.CN[0] : subject.CN;
    // The extended key usages go along: the authenticator refuses a certificate not meant for client authentication.
    peer = { subject: { CN: cn, O: subject.O }, ...(cert.ext_key_usage ? { ext_key_usage: [...cert.ext_key_usage] } : {}) };
  }
  peerSubjects.set(sock, peer);
  return peer;
}

function wantsImpersonation(headers: IncomingMessage["headers"]): boolean {
  // Every request asks: a loop over the names, no array of them.
  for (const h in headers) if (h.charCodeAt(0) === 0x69 && h.startsWith("impersonate-")) return true;
  return false;
}

/**
 * Authenticates (401 when no authenticator recognises the request), then applies impersonation.
 * hooks.onAuthenticated sees the authenticated user before impersonation is checked (for the audit log).
 */
export async function identify(deps: AccessDeps, req: IncomingMessage, hooks: Pick<AdmitHooks, "onAuthenticated"> = {}): Promise<UserInfo> {
  const user = await deps.authenticator.authenticate({ headers: req.headers, peerCertificate: peerCertificateOf(req) });
  if (!user) throw newUnauthorized();
  hooks.onAuthenticated?.(user);
  if (!wantsImpersonation(req.headers)) return user;
  if (!deps.impersonate) throw newForbiddenMessage("impersonation is not supported by this server");
  return deps.impersonate(req.headers, user);
}

export function attributesOf(info: RequestInfo, user: UserInfo, verb = info.verb): AuthorizationAttributes {
  if (!info.isResourceRequest) return { user, verb, resourceRequest: false, path: info.path };
  return {
    user,
    verb,
    resourceRequest: true,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    ...(info.fieldSelector ? { fieldSelector: info.fieldSelector } : {}),
  };
}

/** kube's responsewriters forbiddenMessage. */
export function defaultForbiddenMessage(a: AuthorizationAttributes): string {
  const user = a.user.username;
  if (!a.resourceRequest) return `User "${user}" cannot ${a.verb} path "${a.path ?? ""}"`;
  const resource = a.subresource ? `${a.resource ?? ""}/${a.subresource}` : (a.resource ?? "");
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup ?? ""}" ${scope}`;
}

export function forbiddenError(deps: AccessDeps, a: AuthorizationAttributes, reason: string): StatusError {
  const base = (deps.forbiddenMessage ?? defaultForbiddenMessage)(a);
  const msg = reason ? `${base}: ${reason}` : base;
  if (!a.resourceRequest) return newForbiddenMessage(`forbidden: ${msg}`);
  return newForbidden({ group: a.apiGroup ?? "", resource: a.resource ?? "" }, a.name ?? "", msg);
}

/** 403 unless the authorizer allows the request (with `verb` overriding the request's verb). */
export async function checkAccess(deps: AccessDeps, info: RequestInfo, user: UserInfo, verb?: string): Promise<void> {
  const attrs = attributesOf(info, user, verb);
  const result = await deps.authorizer.authorize(attrs);
  if (result.decision !== "allow") throw forbiddenError(deps, attrs, result.reason);
}

export interface AdmitHooks {
  /** The authenticated user, before impersonation is checked (for the audit log). */
  onAuthenticated?(user: UserInfo): void;
  /** The user the request acts as (after impersonation), before authorization. */
  onIdentified?(user: UserInfo): void;
  /** The request was authorized. */
  onAllowed?(): void;
}

/** A request that passed the access steps: who it acts as and, for resource requests, the resource. */
export interface Admitted {
  user: UserInfo;
  /** Absent for non-resource requests (discovery, health, ...). */
  def?: ResourceDefinition;
}

/**
 * The steps every request passes, plain or upgraded: authentication, impersonation,
 * authorization, then the resource (404 when the server does not serve it, or for the
 * deprecated /proxy/ verb).
 */
export async function admit(deps: AccessDeps & { registry: ResourceRegistry }, req: IncomingMessage, info: RequestInfo, hooks: AdmitHooks = {}): Promise<Admitted> {
  const user = await identify(deps, req, hooks);
  hooks.onIdentified?.(user);
  await checkAccess(deps, info, user);
  hooks.onAllowed?.();
  if (!info.isResourceRequest) return { user };
  const def = info.verb === "proxy" ? undefined : deps.registry.get(info.apiGroup, info.apiVersion, info.resource);
  if (!def) throw newPathNotFound();
  return { user, def };
}
